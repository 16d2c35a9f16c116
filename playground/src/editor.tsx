// The JSON editor: CodeMirror 6 with codemirror-json-schema fed the request's JSON Schema (the
// one GET /v1/capabilities serves, generated from the composition's zod schema) for completion,
// hover documentation and inline errors.
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { jsonSchema } from 'codemirror-json-schema';
import { catalogueFamilyNames, FONT_FAMILIES, requestJsonSchema } from '@video-render-service/composition';
import { useEffect, useRef } from 'react';

type JSONSchema7 = Parameters<typeof jsonSchema>[0];

/** Colours of the page (dark), so the editor does not open as a white panel inside it. */
const darkTheme = EditorView.theme(
  {
    '&': { color: '#e2e8f0', backgroundColor: '#0f172a' },
    '.cm-gutters': { backgroundColor: '#0b1120', color: '#64748b', border: 'none' },
    '.cm-activeLine': { backgroundColor: '#1e293b80' },
    '.cm-activeLineGutter': { backgroundColor: '#1e293b' },
    '.cm-cursor': { borderLeftColor: '#e2e8f0' },
    '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: '#334155' },
    '.cm-tooltip': { backgroundColor: '#1e293b', color: '#e2e8f0', border: '1px solid #334155' },
  },
  { dark: true },
);

/** The schema with every Google Fonts family among `font_family`'s completions (the schema itself lists the shipped ones). */
function withFontFamilies(schema: unknown): unknown {
  const families = [...FONT_FAMILIES, ...catalogueFamilyNames().filter((name) => !(FONT_FAMILIES as readonly string[]).includes(name))];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const fontFamily = (node as { properties?: Record<string, { examples?: unknown[] }> }).properties?.font_family;
    if (fontFamily?.examples) fontFamily.examples = families;
    Object.values(node).forEach(visit);
  };
  visit(schema);
  return schema;
}

export function JsonEditor({ initial, onChange }: { initial: string; onChange: (text: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    const view = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          basicSetup,
          darkTheme,
          jsonSchema(withFontFamilies(requestJsonSchema()) as JSONSchema7),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
          EditorView.contentAttributes.of({ 'aria-label': 'Render request (JSON)' }),
        ],
      }),
    });
    return () => view.destroy();
    // The editor is made once; later text comes from typing and pasting into it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return <div className="editor" ref={host} data-testid="editor" />;
}
