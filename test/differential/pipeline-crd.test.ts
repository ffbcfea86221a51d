/**
 * The Pipeline CRD of the differential test: built from the committed OpenAPI documents, it
 * has the fields, defaults, list-map keys, columns, selectable fields and subresources of
 * the Pipelines Cairn serves, and nothing a CRD's structural schema refuses.
 */
import { describe, expect, it } from 'vitest';
import { pipelines } from '../../src/apis/cairn/pipelines.js';
import { componentResolver } from '../../src/machinery/json-schema.js';
import { committedOpenApi, customResourceDefinition, references, structuralSchema, withDefaults } from './pipeline-crd.js';

const group = 'crd.cairn.test';
const documents = Object.fromEntries(pipelines.versions.map((v) => [v.version, committedOpenApi(pipelines.group, v.version)]));
const crd = customResourceDefinition(pipelines, group, documents);
const version = (name: string) => crd.spec.versions.find((v) => v.name === name)!;

/** Every schema node below `schema`, with its path. */
function nodes(schema: any, path = ''): [string, any][] {
  return [
    [path, schema],
    ...Object.entries(schema.properties ?? {}).flatMap(([name, child]) => nodes(child, `${path}.${name}`)),
    ...(schema.items ? nodes(schema.items, `${path}[]`) : []),
  ];
}

describe('the Pipeline CRD of the differential test', () => {
  it('names pipelines in its own group, namespaced, every version served, v1 stored, conversion None', () => {
    expect(crd.metadata?.name).toBe(`pipelines.${group}`);
    expect(crd.spec.names).toEqual({
      plural: 'pipelines',
      singular: 'pipeline',
      kind: 'Pipeline',
      listKind: 'PipelineList',
      shortNames: ['pl'],
      categories: ['cairn'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ['v1', true, true],
      ['v1beta1', true, false],
      ['v1alpha1', true, false],
    ]);
    expect(crd.spec.conversion).toEqual({ strategy: 'None' });
  });

  it('has a structural schema: a type on every node, no $ref, metadata only an object, no extension a CRD lacks', () => {
    for (const v of crd.spec.versions) {
      const schema = v.schema!.openAPIV3Schema!;
      expect(references(schema)).toEqual([]);
      expect(schema.properties!.metadata).toEqual({ type: 'object' });
      for (const [path, node] of nodes(schema)) {
        expect(node.type, `${v.name} ${path}`).toBeDefined();
        const extensions = Object.keys(node).filter((key) => key.startsWith('x-kubernetes-'));
        expect(
          extensions.filter((key) => !['x-kubernetes-list-type', 'x-kubernetes-list-map-keys'].includes(key)),
          `${v.name} ${path}`,
        ).toEqual([]);
      }
    }
  });

  it('has the same fields as the OpenAPI document, with its list-map keys, enums and limits', () => {
    const document = documents.v1;
    const resolve = componentResolver(document.components.schemas);
    const served = resolve(document.components.schemas['dev.cairn.v1.Pipeline']);
    const schema: any = version('v1').schema!.openAPIV3Schema;
    const paths = (root: any) => nodes(root).map(([path]) => path);
    expect(paths(schema)).toEqual(paths({ ...served, properties: { ...served.properties, metadata: { type: 'object' } } }));
    const steps = schema.properties.spec.properties.steps;
    expect(steps['x-kubernetes-list-type']).toBe('map');
    expect(steps['x-kubernetes-list-map-keys']).toEqual(['name']);
    expect(steps.items.properties.name).toMatchObject({ minLength: 1, maxLength: 63 });
    expect(steps.items.properties.env['x-kubernetes-list-map-keys']).toEqual(['name']);
    expect(schema.properties.status.properties.conditions['x-kubernetes-list-map-keys']).toEqual(['type']);
    expect(schema.properties.status.properties.phase.enum).toEqual(['Pending', 'Running', 'Paused', 'Failed']);
    expect(schema.properties.spec.description).toBe('PipelineSpec is the desired state of a Pipeline.');
  });

  it('declares the defaults Cairn applies in code: spec {} and spec.replicas 1 (spec.parallelism in v1alpha1)', () => {
    expect(version('v1').schema!.openAPIV3Schema!.properties!.spec).toMatchObject({ default: {}, properties: { replicas: { default: 1 } } });
    expect(version('v1beta1').schema!.openAPIV3Schema!.properties!.spec.properties!.replicas.default).toBe(1);
    expect(version('v1alpha1').schema!.openAPIV3Schema!.properties!.spec.properties!.parallelism.default).toBe(1);
    // Only what the defaulter sets: nothing else has a default.
    const defaulted = nodes(version('v1').schema!.openAPIV3Schema!).filter(([, node]) => 'default' in node);
    expect(defaulted.map(([path]) => path)).toEqual(['.spec', '.spec.replicas']);
  });

  it('inlines references and keeps a wrapped reference’s own description', () => {
    const components = { Leaf: { type: 'string' as const, description: 'the leaf' } };
    expect(
      structuralSchema({ type: 'object', properties: { a: { allOf: [{ $ref: '#/components/schemas/Leaf' }], description: 'mine' } } }, components),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string', description: 'mine' } },
    });
    expect(withDefaults({ type: 'object', properties: { a: { type: 'string' } } }, (o) => void (o.a = 'x'))).toEqual({
      type: 'object',
      properties: { a: { type: 'string', default: 'x' } },
    });
  });

  it('has the columns after NAME, the selectable fields, and status and scale at each version’s paths', () => {
    expect(version('v1').additionalPrinterColumns!.map((c) => [c.name, c.type, c.jsonPath])).toEqual([
      ['RunnerClass', 'string', '.spec.runnerClassName'],
      ['Replicas', 'integer', '.spec.replicas'],
      ['Ready', 'integer', '.status.readyReplicas'],
      ['Phase', 'string', '.status.phase'],
      ['Age', 'date', '.metadata.creationTimestamp'],
    ]);
    expect(
      version('v1alpha1')
        .additionalPrinterColumns!.map((c) => c.jsonPath)
        .slice(0, 2),
    ).toEqual(['.spec.runnerClass', '.spec.parallelism']);
    expect(version('v1').selectableFields).toEqual([{ jsonPath: '.spec.runnerClassName' }, { jsonPath: '.status.phase' }]);
    expect(version('v1alpha1').selectableFields).toEqual([{ jsonPath: '.spec.runnerClass' }, { jsonPath: '.status.phase' }]);
    expect(version('v1').subresources).toEqual({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    });
    expect(version('v1alpha1').subresources!.scale!.specReplicasPath).toBe('.spec.parallelism');
  });
});
