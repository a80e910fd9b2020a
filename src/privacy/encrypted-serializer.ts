import { checkBoolean, checkKnownKeys } from "../option-checks.js";
import { OPTION_KEYS } from "../option-keys.js";
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { EncryptionError, InvalidArgumentError } from "../errors.js";
import { aeadOpen, aeadSeal, resolveKey, type EncryptionKey } from "../store/aead.js";

const PREFIX = "aesgcm+";

/** Options for {@link EncryptedSerializer.create}. */
export interface EncryptedSerializerOptions {
  /** 32 bytes (Buffer, 64 hex or 44 base64 characters), or a function returning them (a KMS call, made once). */
  key: EncryptionKey | (() => EncryptionKey | Promise<EncryptionKey>);
  /**
   * The serializer whose output is sealed.
   * @default new JsonPlusSerializer()
   */
  inner?: SerializerProtocol;
  /**
   * Read checkpoints written before encryption was turned on (they stay in
   * clear until rewritten). Writes are always sealed.
   * @default true
   */
  readPlaintext?: boolean;
}

/**
 * A checkpoint `SerializerProtocol` that seals everything a checkpointer
 * stores (checkpoints and pending writes: the thread's messages) with
 * AES-256-GCM, so the threads are encrypted at rest as the memories are. Pass
 * it as the `serde` argument of any LangGraph checkpointer:
 *
 * @example
 * ```ts
 * const serde = await EncryptedSerializer.create({ key: process.env.THREAD_KEY! });
 * const checkpointer = new SqliteSaver(new Database("threads.db"), serde);
 * ```
 */
export class EncryptedSerializer implements SerializerProtocol {
  private constructor(
    private readonly key: Buffer,
    private readonly inner: SerializerProtocol,
    private readonly readPlaintext: boolean,
  ) {}

  static async create(options: EncryptedSerializerOptions): Promise<EncryptedSerializer> {
    if (!options || options.key === undefined) throw new InvalidArgumentError("EncryptedSerializer needs { key }");
    checkKnownKeys(options, OPTION_KEYS.encryptedSerializer);
    checkBoolean(options.readPlaintext, "readPlaintext");
    return new EncryptedSerializer(await resolveKey(options.key), options.inner ?? new JsonPlusSerializer(), options.readPlaintext ?? true);
  }

  async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
    const [type, bytes] = await this.inner.dumpsTyped(data);
    return [PREFIX + type, aeadSeal(this.key, Buffer.from(bytes), type)];
  }

  async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (!type.startsWith(PREFIX)) {
      if (!this.readPlaintext) throw new EncryptionError(`a checkpoint of type '${type}' is not encrypted, and readPlaintext is off`);
      return this.inner.loadsTyped(type, data);
    }
    const innerType = type.slice(PREFIX.length);
    const sealed = typeof data === "string" ? Buffer.from(data, "latin1") : Buffer.from(data);
    const plain = aeadOpen(this.key, sealed, innerType);
    if (!plain) throw new EncryptionError("a checkpoint fails authentication: wrong key, or the data was altered");
    return this.inner.loadsTyped(innerType, new Uint8Array(plain));
  }
}
