"use client";

import Image from "@tiptap/extension-image";
import { TableKit } from "@tiptap/extension-table";
import { EditorContent, useEditor, useEditorState, type Editor } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";

/** Elements the sanitizer keeps that this editor has no node or mark for: a body edit drops them (text stays). */
const NOT_KEPT = ["figure", "figcaption", "sub", "sup", "caption"] as const;

/** Which of {@link NOT_KEPT} the article's HTML holds, for the warning above the editor. */
export function elementsNotKept(html: string): string[] {
  return NOT_KEPT.filter((tag) => new RegExp(`<${tag}[\\s>]`, "i").test(html));
}

/**
 * The article body's rich-text editor (TipTap on ProseMirror, issue 71 item 6): headings, paragraphs,
 * bold, italic, underline, strike, code, links, lists, quotes, code blocks, rules, images and tables, the
 * structure the platform's article HTML keeps. It starts from the cleaned HTML the API answers and hands
 * every change to `onChange` as HTML (TipTap's getHTML), which the server sanitizes again on save.
 * Mounted on the client only (`immediatelyRender: false`): ProseMirror needs the DOM.
 */
export function ArticleEditor({ html, onChange }: { html: string; onChange: (html: string) => void }) {
  const editor = useEditor({
    immediatelyRender: false,
    extensions: [
      StarterKit.configure({ link: { openOnClick: false, protocols: ["http", "https", "mailto"] } }),
      Image,
      TableKit.configure({ table: { resizable: false } }),
    ],
    content: html,
    editorProps: {
      attributes: { "aria-label": "Body", role: "textbox", "aria-multiline": "true", class: "editor-body" },
    },
    // An emptied editor is "" (not "<p></p>"), so the API's "empty article" rule still refuses to publish it.
    onUpdate: ({ editor: e }) => onChange(e.isEmpty ? "" : e.getHTML()),
  });
  return (
    <div className="editor">
      {editor && <Toolbar editor={editor} />}
      <EditorContent editor={editor} />
    </div>
  );
}

/** The editor's buttons; each shows whether it applies at the cursor (`aria-pressed`). */
function Toolbar({ editor }: { editor: Editor }) {
  const on = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive("bold"),
      italic: e.isActive("italic"),
      h2: e.isActive("heading", { level: 2 }),
      h3: e.isActive("heading", { level: 3 }),
      bullets: e.isActive("bulletList"),
      numbers: e.isActive("orderedList"),
      quote: e.isActive("blockquote"),
      undo: e.can().undo(),
      redo: e.can().redo(),
    }),
  });
  const chain = () => editor.chain().focus();
  const buttons: { label: string; pressed?: boolean; disabled?: boolean; run: () => void }[] = [
    { label: "Bold", pressed: on.bold, run: () => chain().toggleBold().run() },
    { label: "Italic", pressed: on.italic, run: () => chain().toggleItalic().run() },
    { label: "Heading 2", pressed: on.h2, run: () => chain().toggleHeading({ level: 2 }).run() },
    { label: "Heading 3", pressed: on.h3, run: () => chain().toggleHeading({ level: 3 }).run() },
    { label: "Bulleted list", pressed: on.bullets, run: () => chain().toggleBulletList().run() },
    { label: "Numbered list", pressed: on.numbers, run: () => chain().toggleOrderedList().run() },
    { label: "Quote", pressed: on.quote, run: () => chain().toggleBlockquote().run() },
    { label: "Undo", disabled: !on.undo, run: () => chain().undo().run() },
    { label: "Redo", disabled: !on.redo, run: () => chain().redo().run() },
  ];
  return (
    <div className="row editor-toolbar" role="toolbar" aria-label="Formatting">
      {buttons.map((b) => (
        <button
          key={b.label}
          type="button"
          className="secondary"
          aria-pressed={b.pressed}
          disabled={b.disabled}
          onClick={b.run}
        >
          {b.label}
        </button>
      ))}
    </div>
  );
}
