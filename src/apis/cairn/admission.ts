/**
 * cairn.dev's admission plugin, the group's business rules that depend on other
 * objects (which a strategy, seeing one object, cannot check): a Pipeline's
 * `spec.runnerClassName` names an existing RunnerClass, and its `spec.replicas` is at
 * most that class's `spec.maxReplicas`. As kube's validating plugins, it refuses with
 * 403 Forbidden (`admission.NewForbidden`), naming the field in the request's version.
 *
 * A Pipeline being deleted always passes (removing its finalizers must not depend on
 * its class), as do writes through `/status`. A class must exist when it is named: an
 * update that keeps the class it had passes when that class is gone (as kube's
 * validation ratchets unchanged values), so labels, ownerReferences (the garbage
 * collector's orphaning) and replicas can still change; it then has no bound. Through
 * `/scale` only the bound is checked, since a scale does not change the class.
 * A Pipeline with no class names nothing and has no bound.
 */
import type { Admission, AdmissionAttributes, ObjectLookup } from '../admission.js';
import { servedVersion } from '../api-resource.js';
import { forbidden } from '../../machinery/errors.js';
import type { FieldError } from '../../machinery/errors.js';
import { fieldPath, invalid, notFound } from '../../machinery/field-errors.js';
import { isPlainObject } from '../../machinery/meta/object.js';
import { groupName } from './group-name.js';
import { pipelines } from './pipelines.js';
import { runnerClasses } from './runner-classes.js';

const runnerClassName = fieldPath('spec', 'runnerClassName');
const replicas = fieldPath('spec', 'replicas');

/** kube's `admission.NewForbidden` of a field error, its path in the request's version (a Scale's own on `/scale`). */
function refusal(a: AdmissionAttributes, error: FieldError): Error {
  const toVersion = a.subresource === 'scale' ? undefined : servedVersion(pipelines, a.version)?.fieldPath;
  const field = toVersion ? toVersion(error.field) : error.field;
  return forbidden({ group: a.group, resource: a.resource }, a.name, `${field}: ${error.message}`);
}

/** The plugin, reading RunnerClasses through `lookup`. */
export function runnerClassAdmission(lookup: ObjectLookup): Admission {
  return {
    async validate(a) {
      if (a.group !== groupName || a.resource !== pipelines.plural || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
      if (a.subresource !== undefined && a.subresource !== 'scale') return;
      const object = a.object!;
      if (object.metadata?.deletionTimestamp) return;
      const spec = isPlainObject(object.spec) ? object.spec : {};
      const className = spec.runnerClassName;
      if (typeof className !== 'string' || className === '') return;
      const runnerClass = await lookup(runnerClasses.plural, '', className);
      if (runnerClass === undefined) {
        const kept = a.subresource === 'scale' || (isPlainObject(a.oldObject?.spec) && a.oldObject.spec.runnerClassName === className);
        if (kept) return;
        throw refusal(a, notFound(runnerClassName, className));
      }
      const maxReplicas = isPlainObject(runnerClass.spec) ? runnerClass.spec.maxReplicas : undefined;
      if (typeof maxReplicas === 'number' && typeof spec.replicas === 'number' && spec.replicas > maxReplicas) {
        throw refusal(a, invalid(replicas, spec.replicas, `must be less than or equal to ${maxReplicas}, the maxReplicas of RunnerClass "${className}"`));
      }
    },
  };
}
