/**
 * The messages of Kubernetes' own types that Cairn writes and reads in Protocol
 * Buffers, with the field numbers of their `generated.proto` in k8s.io/apimachinery
 * (runtime, meta/v1) and k8s.io/api (autoscaling/v1). Only the types Cairn serves are
 * declared; a field Cairn never sets may be left out, never renumbered.
 */
import protobuf from 'protobufjs';
import { metaV1Package, type ProtobufKind } from './messages.js';

const runtime = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message RawExtension { optional bytes raw = 1; }
`;

const metaV1 = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message FieldsV1 { optional bytes Raw = 1; }
message OwnerReference {
  optional string kind = 1; optional string name = 3; optional string uid = 4; optional string apiVersion = 5;
  optional bool controller = 6; optional bool blockOwnerDeletion = 7;
}
message ManagedFieldsEntry {
  optional string manager = 1; optional string operation = 2; optional string apiVersion = 3; optional Time time = 4;
  optional string fieldsType = 6; optional FieldsV1 fieldsV1 = 7; optional string subresource = 8;
}
message ObjectMeta {
  optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional string selfLink = 4;
  optional string uid = 5; optional string resourceVersion = 6; optional int64 generation = 7; optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9; optional int64 deletionGracePeriodSeconds = 10; map<string, string> labels = 11;
  map<string, string> annotations = 12; repeated OwnerReference ownerReferences = 13; repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}
message ListMeta { optional string selfLink = 1; optional string resourceVersion = 2; optional string continue = 3; optional int64 remainingItemCount = 4; }
message StatusCause { optional string reason = 1; optional string message = 2; optional string field = 3; }
message StatusDetails {
  optional string name = 1; optional string group = 2; optional string kind = 3; repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5; optional string uid = 6;
}
message Status {
  optional ListMeta metadata = 1; optional string status = 2; optional string message = 3; optional string reason = 4;
  optional StatusDetails details = 5; optional int32 code = 6;
}
message Preconditions { optional string uid = 1; optional string resourceVersion = 2; }
message DeleteOptions {
  optional int64 gracePeriodSeconds = 1; optional Preconditions preconditions = 2; optional bool orphanDependents = 3;
  optional string propagationPolicy = 4; repeated string dryRun = 5; optional bool ignoreStoreReadErrorWithClusterBreakingPotential = 6;
}
message WatchEvent { optional string type = 1; optional k8s.io.apimachinery.pkg.runtime.RawExtension object = 2; }
message PartialObjectMetadata { optional ObjectMeta metadata = 1; }
message PartialObjectMetadataList { optional ListMeta metadata = 1; repeated PartialObjectMetadata items = 2; }
message GroupVersionForDiscovery { optional string groupVersion = 1; optional string version = 2; }
message ServerAddressByClientCIDR { optional string clientCIDR = 1; optional string serverAddress = 2; }
message APIVersions { repeated string versions = 1; repeated ServerAddressByClientCIDR serverAddressByClientCIDRs = 2; }
message APIGroup {
  optional string name = 1; repeated GroupVersionForDiscovery versions = 2; optional GroupVersionForDiscovery preferredVersion = 3;
  repeated ServerAddressByClientCIDR serverAddressByClientCIDRs = 4;
}
message APIGroupList { repeated APIGroup groups = 1; }
message Verbs { repeated string items = 1; }
message APIResource {
  optional string name = 1; optional bool namespaced = 2; optional string kind = 3; optional Verbs verbs = 4; repeated string shortNames = 5;
  optional string singularName = 6; repeated string categories = 7; optional string group = 8; optional string version = 9;
  optional string storageVersionHash = 10;
}
message APIResourceList { optional string groupVersion = 1; repeated APIResource resources = 2; }
message GroupVersionKind { optional string group = 1; optional string version = 2; optional string kind = 3; }
`;

// Aggregated discovery; v2beta1 has v2's messages and numbers.
const apiDiscovery = (version: string) => `
syntax = "proto2";
package k8s.io.api.apidiscovery.${version};
message APIGroupDiscoveryList { optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1; repeated APIGroupDiscovery items = 2; }
message APIGroupDiscovery { optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1; repeated APIVersionDiscovery versions = 2; }
message APIVersionDiscovery { optional string version = 1; repeated APIResourceDiscovery resources = 2; optional string freshness = 3; }
message APIResourceDiscovery {
  optional string resource = 1; optional k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionKind responseKind = 2; optional string scope = 3;
  optional string singularResource = 4; repeated string verbs = 5; repeated string shortNames = 6; repeated string categories = 7;
  repeated APISubresourceDiscovery subresources = 8;
}
message APISubresourceDiscovery {
  optional string subresource = 1; optional k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionKind responseKind = 2;
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionKind acceptedTypes = 3; repeated string verbs = 4;
}
`;
const apiDiscoveryVersions = ['v2', 'v2beta1'];

const autoscalingV1 = `
syntax = "proto2";
package k8s.io.api.autoscaling.v1;
message Scale {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1; optional ScaleSpec spec = 2; optional ScaleStatus status = 3;
}
message ScaleSpec { optional int32 replicas = 1; }
message ScaleStatus { optional int32 replicas = 1; optional string selector = 2; }
`;

/** Where kube keeps the `.proto` of meta/v1, as a generated `.proto` imports it. */
export const metaV1ProtoPath = 'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto';

/** Where kube keeps runtime's messages (RawExtension), which a message embedding an object imports. */
export const runtimeProtoPath = 'k8s.io/apimachinery/pkg/runtime/generated.proto';

/** A new root holding Kubernetes' messages, for a group's own messages to be added to and resolved against. */
export function kubeMessages(): protobuf.Root {
  const root = new protobuf.Root();
  for (const text of [runtime, metaV1, autoscalingV1, ...apiDiscoveryVersions.map(apiDiscovery)]) protobuf.parse(text, root, { keepCase: true });
  return root;
}

/** The kinds of Kubernetes' own messages a server writes and reads: meta kinds every group version carries, meta.k8s.io's, autoscaling/v1 Scale, aggregated discovery. */
export const kubeKinds: readonly ProtobufKind[] = [
  ...['Status', 'DeleteOptions', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList'].map((kind) => ({ kind, message: `${metaV1Package}.${kind}` })),
  ...['v1', 'v1beta1'].flatMap((version) => [
    { apiVersion: `meta.k8s.io/${version}`, kind: 'PartialObjectMetadata', message: `${metaV1Package}.PartialObjectMetadata` },
    {
      apiVersion: `meta.k8s.io/${version}`,
      kind: 'PartialObjectMetadataList',
      message: `${metaV1Package}.PartialObjectMetadataList`,
      itemKind: 'PartialObjectMetadata',
    },
  ]),
  { apiVersion: 'autoscaling/v1', kind: 'Scale', message: 'k8s.io.api.autoscaling.v1.Scale' },
  ...apiDiscoveryVersions.map((version) => ({
    apiVersion: `apidiscovery.k8s.io/${version}`,
    kind: 'APIGroupDiscoveryList',
    message: `k8s.io.api.apidiscovery.${version}.APIGroupDiscoveryList`,
  })),
];
