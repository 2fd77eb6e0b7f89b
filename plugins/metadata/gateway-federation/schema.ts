/**
 * The federation root fields and types of one role's schema: `_service: _Service!` always,
 * `_entities(representations: [_Any!]!): [_Entity]!` when the role sees an entity (a union
 * needs members), as the reference does.
 */
import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  GraphQLUnionType,
  Kind,
  valueFromASTUntyped,
  type FieldNode,
} from 'graphql';
import {
  schemaKit,
  EngineError,
  type RemoteFieldGroup,
  type RemoteFieldPart,
  type SchemaBuildContext,
  type SchemaDraft,
} from '../../../core/sdk/index.js';
import { entityViews, keyFields } from './entity-views.js';
import { entitiesGroup } from './entities.js';
import { federationSdl } from './sdl.js';

export const SERVICE_FIELD = '_service';
export const ENTITIES_FIELD = '_entities';

const anyScalar = (): GraphQLScalarType =>
  new GraphQLScalarType({
    name: '_Any',
    description: 'Scalar _Any',
    parseValue: (v: unknown) => v,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });

export function addFederationFields(draft: SchemaDraft, ctx: SchemaBuildContext): void {
  const entities = entityViews(draft, ctx);
  const keys = new Map([...entities].map(([name, e]) => [name, keyFields(e)] as const));
  if (!draft.query.has(SERVICE_FIELD)) {
    const serviceType = new GraphQLObjectType({
      name: '_Service',
      fields: { sdl: { type: GraphQLString, description: 'SDL representation of schema' } },
    });
    const group: RemoteFieldGroup = {
      run: (parts) => Promise.resolve(parts.map((p) => (p as ServicePart).answer())),
    };
    draft.query.set(SERVICE_FIELD, {
      config: { type: new GraphQLNonNull(serviceType) },
      planner: {
        kind: 'remote',
        group,
        plan: (field, _parent, pctx): ServicePart => {
          const sdl = federationSdl(pctx.schema, keys);
          return { group, answer: () => JSON.stringify(serviceSelection(field, sdl)) };
        },
      },
    });
  }
  if (entities.size === 0 || draft.query.has(ENTITIES_FIELD)) return;
  const kit = schemaKit(draft, ctx);
  const entityType = new GraphQLUnionType({
    name: '_Entity',
    description: 'A union of all types that use the @key directive',
    types: () => [...entities.values()].map((e) => kit.objectType(e.view)),
  });
  const group = entitiesGroup(entities, ctx);
  draft.query.set(ENTITIES_FIELD, {
    config: {
      type: new GraphQLNonNull(new GraphQLList(entityType)),
      description: 'query _Entity union',
      args: { representations: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(anyScalar()))) } },
    },
    planner: { kind: 'remote', group, plan: (field, _parent, pctx) => group.plan(field, pctx) },
  });
}

interface ServicePart extends RemoteFieldPart {
  answer(): string;
}

/** `{sdl, __typename}` as the selection asks (aliases kept); fragments on `_Service` are flattened. */
function serviceSelection(field: FieldNode, sdl: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (selections: FieldNode['selectionSet']): void => {
    for (const sel of selections?.selections ?? []) {
      if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        if (sel.name.value === 'sdl') out[key] = sdl;
        else if (sel.name.value === '__typename') out[key] = '_Service';
        else throw new EngineError('validation-failed', `field '${sel.name.value}' not found in type: '_Service'`, { path: `$.selectionSet.${SERVICE_FIELD}.selectionSet.${key}` });
      }
    }
  };
  walk(field.selectionSet);
  return out;
}
