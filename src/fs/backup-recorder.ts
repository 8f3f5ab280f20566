// The minimal WriteRecorder: every pre-image goes into the blob store before the file is replaced.
import type { BlobStore } from './blob-store.js';
import type { WriteRecorder } from './write-pipeline.js';

export function backupRecorder(blobs: BlobStore): WriteRecorder {
  return {
    async backup(_path, before) {
      if (before) await blobs.put(before.bytes, before.hash);
    },
    async commit() {},
  };
}
