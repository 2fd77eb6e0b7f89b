/**
 * Asserts that an operation fails with an EngineError of exactly this code, message and path.
 */
import { expect } from 'chai';
import { EngineError } from '../../core/errors.js';

export async function expectEngineError(p: Promise<unknown>, code: string, message: string, path = '$.args'): Promise<EngineError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(EngineError);
    const err = e as EngineError;
    expect({ code: err.code, message: err.message, path: err.path }).to.deep.equal({ code, message, path });
    return err;
  }
  throw new Error(`expected the operation to fail with ${code}`);
}
