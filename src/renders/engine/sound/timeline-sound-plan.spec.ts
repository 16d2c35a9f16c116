import { mediaVolumeAt, resolveRequest, type MediaInfo, type RenderRequest } from '../../../../composition/src/schema';
import { clipSourceSamples, clipTrack, frameSamplePosition, frameSound, frameSourceSeconds, mixTracks, type SoundTrack } from './browser-sound-rules';
import { timelineSoundPlan, type SoundClip } from './timeline-sound-plan';

const media: Record<string, MediaInfo> = {
  'https://m.example/a.wav': { duration: 4, has_audio: true },
  'https://m.example/v.mp4': { duration: 4, has_audio: true, has_video: true, width: 160, height: 90 },
  'https://m.example/mute.mp4': { duration: 4, has_audio: false, has_video: true, width: 160, height: 90 },
};

function plan(request: RenderRequest) {
  return timelineSoundPlan({ request, media }, resolveRequest(request, media));
}

describe('timelineSoundPlan', () => {
  it('takes every element the composition plays with sound, with the composition\'s own volume per frame', () => {
    const request: RenderRequest = {
      width: 320, height: 180, frame_rate: 30, duration: 3,
      elements: [
        { type: 'audio', source_url: 'https://m.example/a.wav', time: 0.5, in_point: 1, out_point: 3, speed: 2, volume: 0.5, fade_in_duration: 0.2 },
        { type: 'video', source_url: 'https://m.example/v.mp4', volume: '150%', fade_out_duration: 1 },
        { type: 'video', source_url: 'https://m.example/mute.mp4' },
        { type: 'audio', source_url: 'https://m.example/a.wav', volume: 0 },
        { type: 'audio', source_url: 'https://m.example/a.wav', visible: false },
      ],
    };
    const resolved = resolveRequest(request, media);
    const result = timelineSoundPlan({ request, media }, resolved);
    if (!result.ok) throw new Error(result.reason);
    expect(result.clips.map((clip) => [clip.index, clip.from, clip.durationInFrames, clip.trimBefore, clip.trimAfter, clip.playbackRate])).toEqual([
      [0, 15, 30, 30, 90, 2],
      [1, 0, 90, undefined, undefined, 1],
    ]);
    const audio = resolved.elements.find((element) => element.index === 0)!;
    if (audio.type !== 'audio') throw new Error('not audio');
    for (const frame of [0, 3, 6, 29]) expect(result.clips[0].gains[frame]).toBe(mediaVolumeAt(audio, frame, 30));
    expect(result.clips[0].gains[0]).toBe(0);
    expect(result.clips[0].gains[10]).toBe(0.5);
    expect(result.clips[1].gains[0]).toBe(1.5);
  });

  it('leaves out a matte source (never mounted as media) and refuses a speed ramp', () => {
    const matte: RenderRequest = {
      width: 320, height: 180, duration: 1,
      elements: [
        { type: 'video', id: 'm', source_url: 'https://m.example/v.mp4' },
        { type: 'shape', fill_color: '#fff', matte: { source: 'm' } },
      ],
    };
    expect(plan(matte)).toMatchObject({ ok: true, clips: [] });
    const ramp: RenderRequest = {
      width: 320, height: 180, duration: 1,
      elements: [{ type: 'audio', source_url: 'https://m.example/a.wav', playback_rate_keyframes: [{ time: 0, rate: 1 }, { time: 1, rate: 2 }] }],
    };
    expect(plan(ramp)).toEqual({ ok: false, reason: expect.stringContaining('speed ramp') });
  });
});

const clip = (over: Partial<SoundClip>): SoundClip => ({
  index: 0, src: 'x', from: 0, durationInFrames: 2, trimBefore: undefined, trimAfter: undefined, playbackRate: 1, gains: new Float64Array([1, 1]), ...over,
});

describe('browser sound rules (Remotion 4.0.529 arithmetic)', () => {
  it('reads each frame\'s own source span, trims included, and nothing past trimAfter', () => {
    expect(frameSourceSeconds(clip({ trimBefore: 30, playbackRate: 2 }), 3, 30)).toEqual([1.2, 1.2 + 2 / 30]);
    expect(frameSourceSeconds(clip({ trimBefore: 30, trimAfter: 36 }), 6, 30)).toBeNull();
    expect(clipSourceSamples(clip({ gains: new Float64Array([0, 1]) }), 30, 48_000)).toEqual([1600, 3200]);
  });

  it('copies 48 kHz stereo unchanged, doubles mono, averages other rates, truncates the volume', () => {
    const stereo = { sampleRate: 48_000, channels: 2, first: 0, samples: Int16Array.from({ length: 3200 }, (_, i) => i - 1600) };
    expect(frameSound(stereo, [0, 1 / 30], 1, 1)).toEqual(stereo.samples.slice(0, 3200));
    const mono = { sampleRate: 48_000, channels: 1, first: 0, samples: Int16Array.from([5, -7, 9]) };
    expect(Array.from(frameSound(mono, [0, 3 / 48_000], 1, 1)!)).toEqual([5, 5, -7, -7, 9, 9]);
    // 0.5 × 9 = 4.5 → 4 and 0.5 × −7 = −3.5 → −3, as an Int16Array takes them.
    expect(Array.from(frameSound(mono, [0, 3 / 48_000], 1, 0.5)!)).toEqual([2, 2, -3, -3, 4, 4]);
    // Speed 2: each output sample the mean of two source samples.
    const fast = { sampleRate: 48_000, channels: 1, first: 0, samples: Int16Array.from([2, 4, 10, 20]) };
    expect(Array.from(frameSound(fast, [0, 4 / 48_000], 2, 1)!)).toEqual([3, 3, 15, 15]);
    // 24 kHz: each source sample stretched over two output samples.
    const slow = { sampleRate: 24_000, channels: 1, first: 0, samples: Int16Array.from([8, 16]) };
    expect(Array.from(frameSound(slow, [0, 2 / 24_000], 1, 1)!)).toEqual([8, 8, 8, 8, 16, 16, 16, 16]);
  });

  it('places frames at the renderer\'s sample positions and mixes ten tracks at a time with 16-bit clipping', () => {
    expect([frameSamplePosition(1, 30), frameSamplePosition(1, 7), frameSamplePosition(3, 7)]).toEqual([1600, 6857, 20571]);
    const span = { sampleRate: 48_000, channels: 2, first: 0, samples: new Int16Array(3200 * 2).fill(100) };
    const track = clipTrack(clip({ from: 3, gains: new Float64Array([0, 0.5]) }), 30, span)!;
    expect(track.start).toBe(4800);
    expect(track.samples.length).toBe(3200 * 2);
    expect([track.samples[0], track.samples[3199], track.samples[3200], track.samples[6399]]).toEqual([0, 0, 50, 50]);
    const loud = (start: number): SoundTrack => ({ start, samples: new Int16Array(4).fill(30_000) });
    const quiet = (start: number, value: number): SoundTrack => ({ start, samples: new Int16Array(4).fill(value) });
    // Two loud tracks clip in their group; a third group member cannot bring them back down.
    expect(Array.from(mixTracks([loud(0), loud(0), quiet(0, -30_000)], 1, 48_000 / 2))).toEqual([30_000, 30_000, 30_000, 30_000]);
    // Eleven tracks: the first ten clip together, the eleventh is added after.
    const eleven = [...Array.from({ length: 10 }, () => loud(0)), quiet(1, -30_000)];
    expect(Array.from(mixTracks(eleven, 1, 48_000 / 3))).toEqual([32_767, 32_767, 2_767, 2_767, -30_000, -30_000]);
  });
});
