/**
 * Name customization of a remote schema (Document 1 §2.9): type names get a prefix/suffix or a
 * mapping, field names per parent type likewise, and root fields may sit under a namespace.
 * Mappings beat prefix/suffix; built-in scalars and `__*` names are never renamed; root types
 * keep their names unless there is a namespace (without one their fields merge into ours).
 * Both directions are kept: clients write customized names, the remote server reads originals.
 */
import type { RemoteCustomization } from './definition.js';

const BUILT_IN_SCALARS = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

export class Customizer {
  private readonly toCustomType = new Map<string, string>();
  private readonly toOriginalType = new Map<string, string>();
  /** By original parent type: original field → customized, and back. */
  private readonly fieldsOut = new Map<string, Map<string, string>>();
  private readonly fieldsIn = new Map<string, Map<string, string>>();

  constructor(
    readonly customization: RemoteCustomization | undefined,
    typeNames: readonly string[],
    fields: ReadonlyMap<string, readonly string[]>,
    rootTypes: ReadonlySet<string>,
  ) {
    const tn = customization?.type_names;
    const namespaced = !!customization?.root_fields_namespace;
    for (const name of typeNames) {
      let custom = name;
      if (!name.startsWith('__') && !BUILT_IN_SCALARS.has(name) && (namespaced || !rootTypes.has(name))) {
        custom = tn?.mapping?.[name] ?? `${tn?.prefix ?? ''}${name}${tn?.suffix ?? ''}`;
      }
      this.toCustomType.set(name, custom);
      this.toOriginalType.set(custom, name);
    }
    for (const [parent, names] of fields) {
      const rule = customization?.field_names?.find((f) => f.parent_type === parent);
      const out = new Map<string, string>();
      const back = new Map<string, string>();
      for (const name of names) {
        const custom = name.startsWith('__') || !rule ? name : (rule.mapping?.[name] ?? `${rule.prefix ?? ''}${name}${rule.suffix ?? ''}`);
        out.set(name, custom);
        back.set(custom, name);
      }
      this.fieldsOut.set(parent, out);
      this.fieldsIn.set(parent, back);
    }
  }

  get namespace(): string | undefined {
    return this.customization?.root_fields_namespace;
  }

  typeName(original: string): string {
    return this.toCustomType.get(original) ?? original;
  }

  originalTypeName(custom: string): string {
    return this.toOriginalType.get(custom) ?? custom;
  }

  fieldName(parentOriginal: string, original: string): string {
    return this.fieldsOut.get(parentOriginal)?.get(original) ?? original;
  }

  originalFieldName(parentOriginal: string, custom: string): string {
    return this.fieldsIn.get(parentOriginal)?.get(custom) ?? custom;
  }

  /** Whether any type name differs from the original (answers' `__typename` must then be mapped). */
  get renamesTypes(): boolean {
    for (const [a, b] of this.toCustomType) if (a !== b) return true;
    return false;
  }
}
