import { z } from 'zod';
import { WAVEFORM_DB_RANGE, WAVEFORM_RANGE } from '../motion/audio-analysis';
import { DUCK_DEFAULTS } from '../motion/ducking';
import { duckSchema } from './elements';
import { renderRequestSchema } from './request';
import { AUDIO_FORMATS, WAVEFORM_STYLES } from './vocabulary';

/** What `/v1/capabilities` says about the sound features: ducking, loudness, waveforms. */
export function audioCapabilities() {
  const schema = (type: z.ZodType) => {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(type, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    return rest;
  };
  return {
    ducking: {
      field: 'duck',
      on: ['audio', 'video'],
      schema: schema(duckSchema),
      defaults: DUCK_DEFAULTS,
      detection: {
        element_ids: 'Where each named element is audible: its decoded sound above -45 dBFS, pauses under 0.3 s bridged (analysed once per source file)',
        speech: 'Where voice activity is detected in the other sound elements: WebRTC VAD (libfvad, mode 3) on 30 ms frames, pauses under 0.3 s bridged (once per source file)',
      },
      curve: 'Linear in dB: down over attack seconds ending where the sound starts, back up over release seconds from where it ends; spans closer than attack + release stay ducked',
    },
    loudness: {
      field: 'audio_normalize',
      schema: schema((renderRequestSchema.shape.audio_normalize as z.ZodType)),
      formats: AUDIO_FORMATS,
      method: 'EBU R128 with ffmpeg loudnorm in two passes (measure, then apply; linear gain when the true-peak ceiling allows)',
      output: {
        'output.loudness': {
          integrated_lufs: 'Measured integrated loudness of the finished file, LUFS',
          true_peak_db: 'Measured true peak of the finished file, dBTP',
          loudness_range_lu: 'Measured loudness range, LU',
          target_lufs: 'The requested target',
          true_peak_ceiling_db: 'The requested ceiling',
          method: 'linear (one gain) or dynamic (loudnorm compressed or limited)',
          before: 'integrated_lufs, true_peak_db and loudness_range_lu of the mix before normalisation',
        },
      },
      previews: 'Not applied to previews',
    },
    waveform: {
      element: 'waveform',
      styles: WAVEFORM_STYLES,
      frequency_range_hz: WAVEFORM_RANGE,
      db_range: WAVEFORM_DB_RANGE,
      analysis: 'Spectrum of the source element (or the mix, ducking applied) in a 2048-sample window at 48 kHz centred on each frame; bands log-spaced; decoded by the same code in the render and the Player',
    },
  };
}
