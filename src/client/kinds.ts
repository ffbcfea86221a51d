/** The `cairn.dev/v1` kinds (the preferred version; `v1beta1` and `v1alpha1` are namespaces of their own) and the kube types they use, named as Go names them. */
import type { components } from './generated/cairn-dev-v1.js';

type Schemas = components['schemas'];

/** A long-running processing pipeline: N parallel runners execute its steps. */
export type Pipeline = Schemas['dev.cairn.v1.Pipeline'];
/** A Pipeline's desired state. */
export type PipelineSpec = NonNullable<Pipeline['spec']>;
/** A Pipeline's observed state, written through `/status`. */
export type PipelineStatus = NonNullable<Pipeline['status']>;
/** A `metav1.Condition` of a Pipeline. */
export type Condition = NonNullable<PipelineStatus['conditions']>[number];
/** A list of Pipelines. */
export type PipelineList = Schemas['dev.cairn.v1.PipelineList'];
/** A cluster-scoped class of runners that Pipelines reference by name. */
export type RunnerClass = Schemas['dev.cairn.v1.RunnerClass'];
/** A list of RunnerClasses. */
export type RunnerClassList = Schemas['dev.cairn.v1.RunnerClassList'];
/** One revision of an object, in its `history`: the write that made it, and the object as it left it. */
export type Revision = Schemas['dev.cairn.v1.Revision'];
/** A page of an object's `history`, newest first (its items' object is of any kind: see `RevisionOf`). */
export type RevisionList = Schemas['dev.cairn.v1.RevisionList'];
/** `autoscaling/v1` Scale, the Pipeline's `/scale` subresource. */
export type Scale = Schemas['io.k8s.api.autoscaling.v1.Scale'];
/** `metav1.ObjectMeta`. */
export type ObjectMeta = Schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
