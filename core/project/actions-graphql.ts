/**
 * The reference CLI keeps actions in two files: actions.yaml (handlers, permissions, relationships)
 * and actions.graphql (the SDL of the actions' signatures and the custom types). This merges the
 * SDL into the metadata document read from the YAML: each `Query`/`Mutation` field completes the
 * action of that name (`arguments`, `output_type`, `type`), and each other type definition
 * becomes a custom type (keeping relationships actions.yaml gave it).
 */
import { parse, print, type FieldDefinitionNode, type InputValueDefinitionNode, type TypeNode } from 'graphql';
import { ProjectError } from './errors.js';
import type { Json, JsonObject } from './metadata-files.js';

const typeText = (t: TypeNode): string => print(t);
const described = (node: object): JsonObject => {
  const d = (node as { description?: { value: string } }).description;
  return d ? { description: d.value } : {};
};

function field(f: FieldDefinitionNode | InputValueDefinitionNode, kind: 'output' | 'input'): JsonObject {
  const out: JsonObject = { name: f.name.value, type: typeText(f.type), ...described(f) };
  if (kind === 'output' && 'arguments' in f && f.arguments?.length) out['arguments'] = f.arguments.map((a) => field(a, 'input'));
  return out;
}

const asObject = (v: Json | undefined): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
const asList = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

export function readActionsGraphql(sdl: string, doc: JsonObject): void {
  if (sdl.trim() === '') return;
  let ast;
  try {
    ast = parse(sdl);
  } catch (e) {
    throw new ProjectError(`actions.graphql: ${(e as Error).message}`);
  }
  const actions = asList(doc['actions']).map(asObject);
  const byName = new Map(actions.map((a) => [a['name'], a]));
  const types = asObject(doc['custom_types']);
  const existing = (key: string) => new Map(asList(types[key]).map((t) => [asObject(t)['name'], asObject(t)]));
  const objects = existing('objects');
  const inputs = existing('input_objects');
  const enums = existing('enums');
  const scalars = existing('scalars');
  for (const def of ast.definitions) {
    switch (def.kind) {
      case 'ObjectTypeDefinition':
      case 'ObjectTypeExtension': {
        const name = def.name.value;
        if (name === 'Query' || name === 'Mutation') {
          for (const f of def.fields ?? []) {
            const action = byName.get(f.name.value) ?? { name: f.name.value };
            if (!byName.has(f.name.value)) {
              actions.push(action);
              byName.set(f.name.value, action);
            }
            const definition = asObject(action['definition']);
            definition['arguments'] = (f.arguments ?? []).map((a) => field(a, 'input'));
            definition['output_type'] = typeText(f.type);
            definition['type'] = name === 'Query' ? 'query' : 'mutation';
            action['definition'] = definition;
            if (f.description && action['comment'] === undefined) action['comment'] = f.description.value;
          }
          break;
        }
        objects.set(name, { ...objects.get(name), name, ...described(def), fields: (def.fields ?? []).map((f) => field(f, 'output')) });
        break;
      }
      case 'InputObjectTypeDefinition':
        inputs.set(def.name.value, { ...inputs.get(def.name.value), name: def.name.value, ...described(def), fields: (def.fields ?? []).map((f) => field(f, 'input')) });
        break;
      case 'EnumTypeDefinition':
        enums.set(def.name.value, {
          name: def.name.value,
          ...described(def),
          values: (def.values ?? []).map((v) => ({ value: v.name.value, ...described(v), is_deprecated: v.directives?.some((d) => d.name.value === 'deprecated') ?? false })),
        });
        break;
      case 'ScalarTypeDefinition':
        scalars.set(def.name.value, { name: def.name.value, ...described(def) });
        break;
      default:
        throw new ProjectError(`actions.graphql: unexpected ${def.kind} (only types, inputs, enums, scalars and Query/Mutation fields)`);
    }
  }
  if (actions.length > 0) doc['actions'] = actions;
  const custom: JsonObject = {};
  if (enums.size) custom['enums'] = [...enums.values()];
  if (inputs.size) custom['input_objects'] = [...inputs.values()];
  if (objects.size) custom['objects'] = [...objects.values()];
  if (scalars.size) custom['scalars'] = [...scalars.values()];
  if (Object.keys(custom).length > 0) doc['custom_types'] = custom;
}

/** Keys of an action's `definition` that actions.graphql carries instead of actions.yaml. */
const SDL_DEFINITION_KEYS = new Set(['arguments', 'output_type', 'type']);

const descriptionLine = (v: Json | undefined, indent: string): string =>
  typeof v === 'string' && v !== '' ? `${indent}${JSON.stringify(v)}\n` : '';

function argumentsText(args: Json | undefined): string {
  const list = asList(args).map(asObject);
  if (list.length === 0) return '';
  const parts = list.map((a) => `${descriptionLine(a['description'], '    ')}    ${String(a['name'])}: ${String(a['type'])}`);
  return `(\n${parts.join('\n')}\n  )`;
}

function fieldsText(fields: Json | undefined, withArguments: boolean): string {
  return asList(fields)
    .map(asObject)
    .map((f) => `${descriptionLine(f['description'], '  ')}  ${String(f['name'])}${withArguments ? argumentsText(f['arguments']) : ''}: ${String(f['type'])}`)
    .join('\n');
}

/**
 * Splits the document's actions and custom types the way the reference CLI writes them: the SDL
 * (the actions' arguments and output types as `Query`/`Mutation` fields, and every custom type
 * with its fields and descriptions) for actions.graphql, and the rest (handlers, permissions,
 * comments, type names and relationships) for actions.yaml. `readActionsGraphql` joins them back.
 */
export function writeActionsGraphql(doc: JsonObject): { yaml: JsonObject; sdl: string } {
  const blocks: string[] = [];
  const actions = asList(doc['actions']).map(asObject);
  // An action without an output type has no signature to write; it stays whole in the YAML.
  const signed = (a: JsonObject): boolean => typeof asObject(a['definition'])['output_type'] === 'string';
  for (const [root, type] of [['Query', 'query'], ['Mutation', 'mutation']] as const) {
    const fields = actions
      .filter((a) => signed(a) && (asObject(a['definition'])['type'] ?? 'mutation') === type)
      .map((a) => {
        const d = asObject(a['definition']);
        return `  ${String(a['name'])}${argumentsText(d['arguments'])}: ${String(d['output_type'])}`;
      });
    if (fields.length > 0) blocks.push(`type ${root} {\n${fields.join('\n')}\n}`);
  }
  const custom = asObject(doc['custom_types']);
  for (const e of asList(custom['enums']).map(asObject)) {
    const values = asList(e['values'])
      .map(asObject)
      .map((v) => `${descriptionLine(v['description'], '  ')}  ${String(v['value'])}${v['is_deprecated'] === true ? ' @deprecated' : ''}`);
    blocks.push(`${descriptionLine(e['description'], '')}enum ${String(e['name'])} {\n${values.join('\n')}\n}`);
  }
  for (const i of asList(custom['input_objects']).map(asObject)) {
    blocks.push(`${descriptionLine(i['description'], '')}input ${String(i['name'])} {\n${fieldsText(i['fields'], false)}\n}`);
  }
  for (const o of asList(custom['objects']).map(asObject)) {
    blocks.push(`${descriptionLine(o['description'], '')}type ${String(o['name'])} {\n${fieldsText(o['fields'], true)}\n}`);
  }
  for (const s of asList(custom['scalars']).map(asObject)) {
    blocks.push(`${descriptionLine(s['description'], '')}scalar ${String(s['name'])}`);
  }

  const yaml: JsonObject = {};
  if (doc['actions'] !== undefined) {
    yaml['actions'] = actions.map((a) => {
      const out: JsonObject = { ...a };
      if (signed(a)) {
        out['definition'] = Object.fromEntries(Object.entries(asObject(a['definition'])).filter(([k]) => !SDL_DEFINITION_KEYS.has(k)));
      }
      return out;
    });
  }
  if (doc['custom_types'] !== undefined) {
    // Only names (and an object's relationships) stay in the YAML, as the reference CLI writes it.
    const namesOnly = (list: Json | undefined): Json[] =>
      asList(list).map(asObject).map((t) => Object.fromEntries(Object.entries(t).filter(([k]) => !['fields', 'values', 'description'].includes(k))));
    const types: JsonObject = {};
    for (const key of ['enums', 'input_objects', 'objects', 'scalars']) if (custom[key] !== undefined) types[key] = namesOnly(custom[key]);
    yaml['custom_types'] = types;
  }
  return { yaml, sdl: blocks.length > 0 ? `${blocks.join('\n\n')}\n` : '' };
}
