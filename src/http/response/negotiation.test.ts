/**
 * Content negotiation, case by case as kube's `NegotiateOutputMediaType` decides it: how an
 * Accept header is read, which format and representation each endpoint answers in, the
 * 406 when none fits, and the serializer a Status error is written with.
 */
import { describe, expect, it } from 'vitest';
import { negotiateOutput, negotiateResourceOutput, parseAccept, statusSerializer, type Endpoint, type OutputTarget } from './negotiation.js';

const json = 'application/json';
const yaml = 'application/yaml';
const protobuf = 'application/vnd.kubernetes.protobuf';
const as = (representation: string, version = 'v1') => `;as=${representation};g=meta.k8s.io;v=${version}`;
const plainTypes = `${json}, ${yaml}, ${protobuf}`;
const streamTypes = `${json};stream=watch, ${protobuf};stream=watch`;

describe('parseAccept', () => {
  it.each([
    ['no header', undefined, [{ type: '*/*', params: {}, q: 1 }]],
    ['a blank header', '  ', [{ type: '*/*', params: {}, q: 1 }]],
    ['one type, lower-cased', 'Application/JSON', [{ type: json, params: {}, q: 1 }]],
    [
      'ranges best first, equal q in the client’s order',
      `${yaml};q=0.5, ${json}, ${protobuf}`,
      [
        { type: json, params: {}, q: 1 },
        { type: protobuf, params: {}, q: 1 },
        { type: yaml, params: {}, q: 0.5 },
      ],
    ],
    ['parameters with lower-cased names and unquoted values', `${json}; AS="Table" ;v=v1`, [{ type: json, params: { as: 'Table', v: 'v1' }, q: 1 }]],
    ['q=0 and an unreadable q refuse the range', `${yaml};q=0, ${protobuf};q=high, ${json}`, [{ type: json, params: {}, q: 1 }]],
    ['empty parts are dropped', `, ${json},`, [{ type: json, params: {}, q: 1 }]],
  ])('reads %s', (_, header, ranges) => {
    expect(parseAccept(header)).toEqual(ranges);
  });
});

describe('negotiateResourceOutput', () => {
  const cases: [string, string | undefined, Endpoint, OutputTarget][] = [
    ['no Accept is JSON', undefined, 'object', { format: 'json' }],
    ['a wildcard is JSON', '*/*', 'list', { format: 'json' }],
    ['application/* is JSON', 'application/*', 'watch', { format: 'json' }],
    ['YAML for an object', yaml, 'object', { format: 'yaml' }],
    ['YAML for a list', yaml, 'list', { format: 'yaml' }],
    ['the first range Cairn writes', `text/html, ${protobuf}, ${json}`, 'object', { format: 'protobuf' }],
    ['a watch skips YAML for the next range', `${yaml}, ${json};q=0.5`, 'watch', { format: 'json' }],
    ['a protobuf watch', `${protobuf}, ${json}`, 'watch', { format: 'protobuf' }],
    ['a protobuf watch asked with stream=watch', `${protobuf};stream=watch`, 'watch', { format: 'protobuf' }],
    ['a Table of an object', `${json}${as('Table')}`, 'object', { format: 'json', transform: { as: 'Table', version: 'v1' } }],
    ['a Table of a list in v1beta1', `${json}${as('Table', 'v1beta1')}`, 'list', { format: 'json', transform: { as: 'Table', version: 'v1beta1' } }],
    ['a Table in YAML', `${yaml}${as('Table')}`, 'list', { format: 'yaml', transform: { as: 'Table', version: 'v1' } }],
    ['a Table of watch events', `${json}${as('Table')}`, 'watch', { format: 'json', transform: { as: 'Table', version: 'v1' } }],
    [
      'no Table in protobuf: the next range',
      `${protobuf}${as('Table')}, ${json}${as('Table')}`,
      'object',
      { format: 'json', transform: { as: 'Table', version: 'v1' } },
    ],
    [
      'PartialObjectMetadata of an object, in protobuf',
      `${protobuf}${as('PartialObjectMetadata')}`,
      'object',
      { format: 'protobuf', transform: { as: 'PartialObjectMetadata', version: 'v1' } },
    ],
    [
      'PartialObjectMetadataList of a list, in protobuf',
      `${protobuf}${as('PartialObjectMetadataList')}`,
      'list',
      { format: 'protobuf', transform: { as: 'PartialObjectMetadataList', version: 'v1' } },
    ],
    ['a list is never PartialObjectMetadata: the plain range after it', `${json}${as('PartialObjectMetadata')}, ${json}`, 'list', { format: 'json' }],
    ['an object is never a PartialObjectMetadataList', `${json}${as('PartialObjectMetadataList')}, ${yaml}`, 'object', { format: 'yaml' }],
    ['a transformation of another group is not Cairn’s', `${json};as=Table;g=example.com;v=v1, ${yaml}`, 'object', { format: 'yaml' }],
    ['a transformation of an unknown version is not Cairn’s', `${json}${as('Table', 'v2')}, ${yaml}`, 'object', { format: 'yaml' }],
  ];
  it.each(cases)('%s', (_, accept, endpoint, target) => {
    expect(negotiateResourceOutput(accept, endpoint)).toEqual(target);
  });

  it('answers each Accept again as it did, per endpoint, and keeps refusing what it refused', () => {
    for (let i = 0; i < 3; i++) {
      expect(negotiateResourceOutput(yaml, 'object')).toEqual({ format: 'yaml' });
      expect(() => negotiateResourceOutput(yaml, 'watch')).toThrow(expect.objectContaining({ code: 406 }));
      expect(negotiateResourceOutput(`${yaml}, ${json};q=0.5`, 'watch')).toEqual({ format: 'json' });
    }
    // More distinct headers than are kept: each still answered as itself.
    for (let i = 0; i < 600; i++) expect(negotiateResourceOutput(`${json};x=${i}, ${yaml}`, 'object')).toEqual({ format: 'json' });
    expect(Object.isFrozen(negotiateResourceOutput(`${json}${as('Table')}`, 'object').transform)).toBe(true);
  });

  it.each([
    ['nothing Cairn writes', 'text/html', 'object', plainTypes],
    ['only a Table in protobuf', `${protobuf}${as('Table')}`, 'watch', plainTypes],
    ['a transformation without a version', `${json};as=Table;g=meta.k8s.io`, 'list', plainTypes],
    ['only YAML for a watch: the stream types', yaml, 'watch', streamTypes],
    ['only a YAML Table for a watch: the stream types', `${yaml}${as('Table')}`, 'watch', streamTypes],
  ] as const)('answers %s with a 406 listing what kube lists', (_, accept, endpoint, listed) => {
    expect(() => negotiateResourceOutput(accept, endpoint)).toThrow(
      expect.objectContaining({ code: 406, message: `only the following media types are accepted: ${listed}` }),
    );
  });
});

describe('plain responses', () => {
  it.each([
    [undefined, 'json'],
    [yaml, 'yaml'],
    [`${json}${as('Table')}, ${yaml}`, 'yaml'],
    [`${protobuf}, */*`, 'protobuf'],
  ])('negotiateOutput writes Accept %s as %s', (accept, format) => {
    expect(negotiateOutput(accept)).toBe(format);
  });

  it.each([['text/html'], [`${json}${as('Table')}`]])('negotiateOutput answers %s with a 406', (accept) => {
    expect(() => negotiateOutput(accept)).toThrow(
      expect.objectContaining({ code: 406, message: `only the following media types are accepted: ${plainTypes}` }),
    );
  });

  it.each([
    [undefined, json],
    [yaml, yaml],
    [`${json}${as('Table')}, ${yaml}`, yaml],
    [`${json}${as('Table')}`, json],
    ['text/html', json],
    [`${protobuf}, */*`, protobuf],
    [`${protobuf}${as('Table')}, */*`, json],
  ])('writes a Status for Accept %s as %s', (accept, mediaType) => {
    expect(statusSerializer(accept).mediaType).toBe(mediaType);
  });
});
