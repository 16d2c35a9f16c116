import { playerPropsFor } from './player-props';
import { validateRenderRequest, type RenderRequest } from './schema';

function request(body: unknown): RenderRequest {
  const parsed = validateRenderRequest(body);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value;
}

describe('playerPropsFor', () => {
  // An audiogram: the audio has no out_point, so only the file knows how long the video lasts.
  const audiogram = request({
    width: 320,
    height: 180,
    frame_rate: 30,
    elements: [
      { type: 'audio', id: 'vo', source_url: 'https://media.example/voice.mp3' },
      { type: 'waveform', source: 'vo', duration: 1 },
    ],
  });

  it("lasts as long as the render once given the dry run's measured media", () => {
    const media = { 'https://media.example/voice.mp3': { duration: 4, has_audio: true, has_video: false } };
    const props = playerPropsFor(audiogram, media);
    expect(props.durationInFrames).toBe(120);
    expect(props.inputProps.media).toBe(media);
    expect([props.compositionWidth, props.compositionHeight, props.fps]).toEqual([320, 180, 30]);
  });

  it("falls back to the schema's 5 s for a length it was not given", () => {
    expect(playerPropsFor(audiogram).durationInFrames).toBe(150);
  });

  it('counts the measured length from in_point and at the speed, as the render does', () => {
    const trimmed = request({ ...audiogram, elements: [{ type: 'audio', source_url: 'https://media.example/voice.mp3', in_point: 1, speed: 2 }] });
    expect(playerPropsFor(trimmed, { 'https://media.example/voice.mp3': { duration: 4 } }).durationInFrames).toBe(45);
  });
});
