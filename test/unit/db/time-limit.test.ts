import { expect } from 'chai';
import { giveUpAtDeadline, TIME_LIMIT_EXCEEDED_MESSAGE, timeLimitExceeded } from '../../../core/sdk/index.js';

const settle = <T>(p: Promise<T>): Promise<{ value?: T; error?: { code?: string; message?: string } }> =>
  p.then(
    (value) => ({ value }),
    (error: { code?: string; message?: string }) => ({ error }),
  );
const after = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

describe('core/db time limits', () => {
  it('one refusal for every kind: code, message, and the path when given', () => {
    expect(timeLimitExceeded()).to.include({ code: 'time-limit-exceeded', message: TIME_LIMIT_EXCEEDED_MESSAGE });
    expect(timeLimitExceeded({ path: '$.selectionSet.x', internal: 'cancelled' })).to.include({ path: '$.selectionSet.x', internal: 'cancelled', status: 400 });
  });

  it('gives what finishes before the deadline, its failure included', async () => {
    expect(await settle(giveUpAtDeadline(after(5, 'rows'), Date.now() + 1_000))).to.deep.equal({ value: 'rows' });
    const failed = await settle(giveUpAtDeadline(Promise.reject(new Error('syntax error')), Date.now() + 1_000));
    expect(failed.error?.message).to.equal('syntax error');
  });

  it('gives up at the deadline with time-limit-exceeded, and at once when it has passed', async () => {
    const started = Date.now();
    const late = await settle(giveUpAtDeadline(after(2_000, 'rows'), Date.now() + 50));
    expect(late.error).to.include({ code: 'time-limit-exceeded', message: TIME_LIMIT_EXCEEDED_MESSAGE });
    expect(Date.now() - started).to.be.within(40, 1_000);
    const passed = Date.now();
    expect((await settle(giveUpAtDeadline(after(2_000, 'rows'), Date.now() - 10))).error?.code).to.equal('time-limit-exceeded');
    expect(Date.now() - passed).to.be.below(500);
  });
});
