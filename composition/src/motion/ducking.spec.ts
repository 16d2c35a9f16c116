import { compositionSpans, duckCurve, duckGain, mergeSpans, type SoundSource } from './ducking';

const source = (over: Partial<SoundSource>): SoundSource => ({
  id: null, index: 0, startSeconds: 0, durationSeconds: 10, inPoint: 0, playbackRate: 1, rateKeyframes: null, ...over,
});

describe('auto-ducking curve', () => {
  it('moves source spans onto the timeline through trim, start and speed, clipped to the clip', () => {
    const clip = source({ startSeconds: 2, durationSeconds: 3, inPoint: 1, playbackRate: 2 });
    expect(compositionSpans(clip, [[0, 2], [3, 5], [6, 9], [9, 10]])).toEqual([[2, 2.5], [3, 4], [4.5, 5]]);
  });

  it('ramps down over attack before the speech and back up over release after it, linear in dB', () => {
    const bed = source({ index: 0 });
    const voice = source({ index: 1, startSeconds: 1, speech: [[0, 2]] });
    const curve = duckCurve(bed, { under: 'speech', amount_db: 12, attack: 0.2, release: 0.5 }, [bed, voice])!;
    expect(curve.spans).toEqual([[1, 3]]);
    expect(duckGain(curve, 0.5)).toBe(1);
    expect(duckGain(curve, 0.9)).toBeCloseTo(10 ** (-6 / 20), 6);
    expect(duckGain(curve, 2)).toBeCloseTo(10 ** (-12 / 20), 6);
    expect(duckGain(curve, 3.25)).toBeCloseTo(10 ** (-6 / 20), 6);
    expect(duckGain(curve, 3.6)).toBe(1);
  });

  it('never ducks under its own speech, and stays down across pauses shorter than attack + release', () => {
    const bed = source({ index: 0, speech: [[0, 10]] });
    expect(duckCurve(bed, { under: 'speech' }, [bed])).toBeNull();
    expect(mergeSpans([[3.5, 4], [1, 2], [2.5, 2.6]], 0.6)).toEqual([[1, 2.6], [3.5, 4]]);
  });

  it('ducks under named elements where they are audible, or their whole span when not analysed', () => {
    const bed = source({ index: 0 });
    const analysed = source({ index: 1, id: 'vo', startSeconds: 2, audible: [[0.5, 1]] });
    const plain = source({ index: 2, id: 'sfx', startSeconds: 6, durationSeconds: 1 });
    expect(duckCurve(bed, { under: ['vo', 'sfx'] }, [bed, analysed, plain])!.spans).toEqual([[2.5, 3], [6, 7]]);
  });
});
