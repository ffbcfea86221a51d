/**
 * The vocabulary the protobuf modules share — a kind and its message, a message's
 * definition, meta/v1's package — in a leaf of its own, so that Kubernetes' messages,
 * the messages made from schemas and the scheme that holds both import it and not
 * each other.
 */

/** A kind the scheme writes and reads, and the message that holds it. */
export interface ProtobufKind {
  /** The kind's apiVersion; undefined for meta kinds every group version carries (Status, DeleteOptions). */
  readonly apiVersion?: string;
  readonly kind: string;
  /** Its full message name. */
  readonly message: string;
  /** The kind of a list's items, whose JSON form repeats their apiVersion and kind where the message does not. */
  readonly itemKind?: string;
}

/** One field of a message. */
export interface MessageField {
  readonly name: string;
  readonly number: number;
  /** A scalar type (`string`, `int32`…) or a full message name. */
  readonly type: string;
  readonly label: 'optional' | 'repeated' | 'map';
}

/** One message: its full name (`dev.cairn.v1.PipelineSpec`), fields, and the numbers of fields that went away. */
export interface MessageDefinition {
  readonly name: string;
  readonly fields: readonly MessageField[];
  readonly reserved: readonly { readonly name: string; readonly number: number }[];
}

/** The package of meta.k8s.io/v1's messages. */
export const metaV1Package = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** The package of a full message name. */
export const packageOf = (message: string): string => message.slice(0, message.lastIndexOf('.'));
