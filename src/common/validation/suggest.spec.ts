import { closestMatch, jsonPointer } from './suggest';

describe('closestMatch', () => {
  it('suggests a close field name or enum value', () => {
    expect(closestMatch('nmae', ['name'])).toBe('name');
    expect(closestMatch('volumee', ['volume', 'opacity', 'speed'])).toBe('volume');
    expect(closestMatch('3d', ['7d', '30d', '90d'])).toBe('7d');
    expect(closestMatch('Name', ['name'])).toBe('name'); // names are case-sensitive
    expect(closestMatch('name', ['name'])).toBeUndefined(); // already right
  });

  it('stays silent when nothing is close', () => {
    expect(closestMatch('colour', ['name'])).toBeUndefined();
    expect(closestMatch('ab', ['xy'])).toBeUndefined();
    expect(closestMatch('x', [])).toBeUndefined();
  });
});

describe('jsonPointer', () => {
  it('escapes per RFC 6901', () => {
    expect(jsonPointer(['elements', 0, 'volume'])).toBe('/elements/0/volume');
    expect(jsonPointer(['a/b', 'c~d'])).toBe('/a~1b/c~0d');
    expect(jsonPointer([])).toBe('');
  });
});
