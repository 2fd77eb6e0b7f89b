/** Compact views of a generated schema for assertions: field signatures without descriptions. */
import {
  isEnumType,
  isInputObjectType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLSchema,
} from 'graphql';

const arg = (a: GraphQLArgument): string => `${a.name}: ${String(a.type)}`;

/** `name(arg: T, ...): T` for each field of an object type, or `name: T` for input fields and enum values. */
export function signature(schema: GraphQLSchema, typeName: string): string[] {
  const t = schema.getType(typeName);
  if (!t) throw new Error(`no type ${typeName}`);
  if (isObjectType(t)) {
    return Object.values(t.getFields()).map((f) =>
      f.args.length ? `${f.name}(${f.args.map(arg).join(', ')}): ${String(f.type)}` : `${f.name}: ${String(f.type)}`,
    );
  }
  if (isInputObjectType(t)) return Object.values(t.getFields()).map((f) => `${f.name}: ${String(f.type)}`);
  if (isEnumType(t)) return t.getValues().map((v) => v.name);
  throw new Error(`${typeName} is not an object, input or enum type`);
}

export function description(schema: GraphQLSchema, typeName: string, field?: string): string | null | undefined {
  const t = schema.getType(typeName);
  if (!t) throw new Error(`no type ${typeName}`);
  if (!field) return t.description;
  if (isObjectType(t) || isInputObjectType(t)) return t.getFields()[field]?.description;
  if (isEnumType(t)) return t.getValue(field)?.description;
  return undefined;
}

export const typeNames = (schema: GraphQLSchema): string[] =>
  Object.keys(schema.getTypeMap()).filter((n) => !n.startsWith('__'));
