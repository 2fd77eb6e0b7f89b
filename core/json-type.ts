/** The JSON type name the reference engine's decoder prints in "expected X, but encountered Y". */
export function jsonTypeName(v: unknown): 'Null' | 'Array' | 'String' | 'Number' | 'Boolean' | 'Object' {
  if (v === null) return 'Null';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
    default:
      return 'Object';
  }
}
