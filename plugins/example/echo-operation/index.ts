/**
 * Example plugin for docs/plugins.md: adds the metadata operation `example_echo`, which answers
 * its args back with a configurable prefix, and counts the calls in a container service. Not in
 * the default preset; test/unit/kernel/example-plugin.test.ts loads it from a plugin config.
 * Taps `onMetadataOperation` for one type. Safe to disable (nothing depends on it).
 */
import { asValue, definePlugin } from '../../../core/sdk/index.js';

interface EchoOptions {
  prefix: string;
}

export interface EchoCounter {
  calls: number;
}

export default definePlugin<EchoOptions>({
  name: 'echo-operation',
  kind: 'example',
  optionsSchema: {
    type: 'object',
    properties: { prefix: { type: 'string', default: 'echo' } },
    required: ['prefix'],
    additionalProperties: false,
  },
  register(container, hooks, { prefix }) {
    const counter: EchoCounter = { calls: 0 };
    container.register({ 'example.echoCounter': asValue(counter) });
    hooks.onMetadataOperation.for('example_echo').tapPromise('example/echo-operation', async (op) => {
      counter.calls += 1;
      return { body: { [prefix]: op.args } };
    });
  },
});
