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
