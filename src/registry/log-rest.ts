/**
 * The `log` subresource of any resource that declares one, as kube's pods/log
 * `LogREST` serves it: options validated as ValidatePodLogOptions does (422), the
 * object read (404), the stream checked against the object's (400, as an unknown
 * container is), then the lines.
 */
import type { ApiResource, LogSubresource } from '../apis/api-resource.js';
import { badRequest, invalid, type FieldError, type GroupResource } from '../machinery/errors.js';
import type { StoredObject } from '../machinery/meta/object.js';
import type { ResourceStorage, StorageKey, StorageWatcher } from '../storage/interfaces.js';
import { LogReader } from './log-reader.js';
import type { LogOptions } from './request-options.js';
import { interpretStorageError } from './interpret-storage-error.js';
import type { LogAppender, LogStreamer } from './endpoint-rest.js';
import { FieldPath, fieldPath, forbidden, invalid as invalidField } from '../machinery/field-errors.js';

/** kube's ValidatePodLogOptions, message for message. */
function logOptionErrors(options: LogOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0) {
    errors.push(invalidField(fieldPath('tailLines'), options.tailLines, 'must be greater than or equal to 0'));
  }
  if (options.limitBytes !== undefined && options.limitBytes < 1)
    errors.push(invalidField(fieldPath('limitBytes'), options.limitBytes, 'must be greater than 0'));
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined) {
    errors.push(forbidden(FieldPath.root, 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) {
    errors.push(invalidField(fieldPath('sinceSeconds'), options.sinceSeconds, 'must be greater than 0'));
  }
  return errors;
}

/** Appends to and reads the logs of one resource's objects. */
export class LogREST implements LogStreamer, LogAppender {
  readonly #resource: ApiResource;
  readonly #log: LogSubresource;
  readonly #storage: ResourceStorage;
  readonly #gr: GroupResource;

  constructor(resource: ApiResource, log: LogSubresource, storage: ResourceStorage) {
    this.#resource = resource;
    this.#log = log;
    this.#storage = storage;
    this.#gr = { group: resource.group, resource: resource.plural };
  }

  /** The query parameter (and JSON field of an append) naming a stream (`step`). */
  get streamParameter(): string {
    return this.#log.streamParameter;
  }

  /** `stream` when the object has it; 400 otherwise, as kube answers an unknown container. */
  #checkStream(object: StoredObject, stream: string): string {
    if (!this.#log.streamsOf(object).includes(stream)) {
      throw badRequest(`${this.#log.streamParameter} ${stream} is not valid for ${this.#resource.singular} ${object.metadata.name}`);
    }
    return stream;
  }

  /** Appends `lines` to the log of the object at `key`, in its stream `stream` (required: 400 without). */
  async append(key: StorageKey, stream: string | undefined, lines: readonly string[]): Promise<void> {
    const streamOf = (current: StoredObject): string => {
      if (stream === undefined) {
        const choices = this.#log.streamsOf(current).join(' ');
        throw badRequest(`a ${this.#log.streamParameter} name must be specified for ${this.#resource.singular} ${key.name}, choose one of: [${choices}]`);
      }
      return this.#checkStream(current, stream);
    };
    try {
      await this.#storage.logs.append(key, lines, streamOf);
    } catch (error) {
      throw interpretStorageError(error, this.#gr, key.name);
    }
  }

  /** Opens the log of the object at `key`. Bad options, a missing object and an unknown stream are thrown here, before any line is read. */
  async open(key: StorageKey, options: LogOptions): Promise<LogReader> {
    const errors = logOptionErrors(options);
    if (errors.length) throw invalid(`${this.#resource.kind}LogOptions`, this.#resource.group, key.name, errors);
    const since = options.sinceSeconds !== undefined ? new Date(Date.now() - options.sinceSeconds * 1000) : options.sinceTime;
    let objectWatch: StorageWatcher | undefined;
    try {
      // Watched before it is read: its deletion after the read is then certain to be seen.
      if (options.follow)
        objectWatch = await this.#storage.watch(key.namespace, undefined, { fieldSelector: [{ field: 'metadata.name', operator: '=', value: key.name }] });
      const object = await this.#storage.get(key);
      const uid = String(object.metadata.uid);
      const stream = options.stream === undefined ? undefined : this.#checkStream(object, options.stream);
      const from = options.tailLines === undefined ? 0n : await this.#storage.logs.tailStart(uid, options.tailLines, stream);
      return new LogReader({ logs: this.#storage.logs, uid, from, stream, since, objectWatch });
    } catch (error) {
      objectWatch?.stop();
      throw interpretStorageError(error, this.#gr, key.name);
    }
  }
}
