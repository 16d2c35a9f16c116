// The JSON editor: CodeMirror 6 with codemirror-json-schema fed the request's JSON Schema (the
// one GET /v1/capabilities serves, generated from the composition's zod schema) for completion,
// hover documentation and inline errors.
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { jsonSchema } from 'codemirror-json-schema';
import { requestJsonSchema } from '@video-render-service/composition';
import { useEffect, useRef } from 'react';

type JSONSchema7 = Parameters<typeof jsonSchema>[0];

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
          jsonSchema(requestJsonSchema() as JSONSchema7),
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
