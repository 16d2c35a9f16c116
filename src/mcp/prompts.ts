/** MCP prompts: ready-made tasks that walk an agent through the tools in a sensible order. */
export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
  render(args: Record<string, string>): string;
}

export const PROMPTS: PromptDefinition[] = [
  {
    name: 'captioned_vertical_video',
    title: 'Script → captioned vertical video',
    description: 'Turn a script into a 1080x1920 video with animated captions, checked and previewed before it is rendered.',
    arguments: [
      { name: 'script', description: 'The text to show, one caption per sentence', required: true },
      { name: 'audio_url', description: 'Optional voice-over (public URL or an upload source_url) to transcribe and caption word by word', required: false },
      { name: 'style', description: 'Optional look: colours, font, mood', required: false },
    ],
    render: (args) =>
      [
        'Make a vertical (1080x1920, 30 fps, mp4) captioned video with the video rendering service tools.',
        '',
        `Script:\n${args.script}`,
        args.style ? `\nStyle: ${args.style}` : '',
        '',
        'Steps:',
        '1. Call get_capabilities once; use only fonts, motions, text animations and effects it lists.',
        args.audio_url
          ? `2. Call transcribe with {"request": {"source_url": "${args.audio_url}"}, "wait": true}. Add the audio as an audio element and a text element whose \`transcript\` names the task (word timings drive the captions); size the video to the audio.`
          : '2. Split the script into sentences; give each a text element with `time` and `duration` (about 0.4 s per word, at least 1.5 s), large bold type near the lower third, an entrance animation and a contrasting background shape or gradient.',
        '3. Call validate_render with the request. Fix every violation and every item of submit_error.details.errors (each has a `pointer`, and a `suggestion` when a name is misspelt) until `ok` is true.',
        '4. Call preview_frame at two or three times (start, middle, a caption change) and look at the images: text inside the frame, readable, not overlapping.',
        '5. Call render with {"request": …, "wait": true} and report the download_url.',
      ]
        .filter((line) => line !== '')
        .join('\n'),
  },
  {
    name: 'fix_render_request',
    title: 'Fix a render request',
    description: 'Validate a render request and correct it until the dry run reports ok.',
    arguments: [{ name: 'request', description: 'The render request JSON', required: true }],
    render: (args) =>
      [
        'Here is a render request for the video rendering service:',
        '',
        args.request,
        '',
        'Call validate_render with it. For each problem (violations, submit_error.details.errors) change the value at its JSON `pointer`, ',
        'using `suggestion` when there is one, and validate again until `ok` is true. Then show the corrected request and what you changed.',
      ].join('\n'),
  },
];
