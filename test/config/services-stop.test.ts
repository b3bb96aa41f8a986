import { describe, expect, test } from 'bun:test';
import { testApp } from '../support/app';
import { backends } from '../support/db';

/*
 * services.stop() (src/services.ts) stops every part even when one of them fails, so no poller
 * is left running against a database that is about to close; the failure is still reported.
 */
for (const backend of backends()) {
  describe(`stopping the services on ${backend.name}`, async () => {
    const db = await backend.create();

    test('a part that fails to stop does not keep the others running, and its error is thrown', async () => {
      const { services } = await testApp(db);
      const stopped: string[] = [];
      const watch = (name: string, part: { stop(): Promise<void> }) => {
        const stop = part.stop.bind(part);
        part.stop = async () => {
          stopped.push(name);
          await stop();
        };
      };
      const pipelineStop = services.clickPipeline.stop.bind(services.clickPipeline);
      services.clickPipeline.stop = async () => {
        await pipelineStop();
        throw new Error('flush refused');
      };
      watch('postbacks', services.postbackWorker);
      watch('late matcher', services.lateMatcher);
      watch('link changes', services.linkChanges);
      watch('mirror', services.mirror);

      await expect(services.stop()).rejects.toThrow('flush refused');
      expect(stopped).toEqual(['postbacks', 'late matcher', 'link changes', 'mirror']);
      await expect(services.mirror.catchUp()).rejects.toThrow('analytics mirror is stopped');
    });
  });
}
