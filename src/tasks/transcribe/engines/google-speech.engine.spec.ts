import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { v1 } from '@google-cloud/speech';
import { google } from '@google-cloud/speech/build/protos/protos';
import { Storage } from '../../../infra/storage/storage';
import { TaskFailure } from '../../task-failure';
import { buildTranscript } from '../transcript';
import { EngineRequest } from './speech-engine';
import { GOOGLE_INLINE_AUDIO_BYTES, GoogleSpeechEngine } from './google-speech.engine';

const PROTOS = path.dirname(require.resolve('@google-cloud/speech/build/protos/protos.json'));
/** google-gax (the client's transport) ships the common protos (longrunning, rpc); its exports hide package.json. */
const GAX_PROTOS = path.join(path.dirname(require.resolve('google-gax')), '..', 'protos');

type Answer = { response: google.cloud.speech.v1.ILongRunningRecognizeResponse } | { error: { code: grpc.status; details: string } };

/**
 * A local stand-in for Speech-to-Text on its real transport: a gRPC server (insecure) that serves
 * google.cloud.speech.v1.Speech/LongRunningRecognize from Google's own protos, records each
 * request and answers a finished long-running operation (or an error).
 */
async function startFakeSpeech() {
  const definition = protoLoader.loadSync(path.join(PROTOS, 'google/cloud/speech/v1/cloud_speech.proto'), {
    includeDirs: [PROTOS, GAX_PROTOS],
    keepCase: false,
    longs: String,
    enums: String,
    defaults: false,
  });
  const loaded = grpc.loadPackageDefinition(definition) as any;
  const requests: any[] = [];
  let answer: Answer = { response: {} };
  const server = new grpc.Server();
  server.addService(loaded.google.cloud.speech.v1.Speech.service, {
    longRunningRecognize: (call: any, callback: grpc.sendUnaryData<unknown>) => {
      requests.push(call.request);
      if ('error' in answer) return callback({ code: answer.error.code, details: answer.error.details } as grpc.ServiceError);
      const value = google.cloud.speech.v1.LongRunningRecognizeResponse.encode(answer.response).finish();
      callback(null, {
        name: `operations/${requests.length}`,
        done: true,
        response: { typeUrl: 'type.googleapis.com/google.cloud.speech.v1.LongRunningRecognizeResponse', value: Buffer.from(value) },
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    requests,
    answer: (next: Answer) => (answer = next),
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

const t = (seconds: number) => ({ seconds: String(Math.floor(seconds)), nanos: Math.round((seconds % 1) * 1e9) });
const word = (text: string, from: number, to: number, speakerTag?: number) => ({ word: text, startTime: t(from), endTime: t(to), confidence: 0.9, ...(speakerTag ? { speakerTag } : {}) });

describe('GoogleSpeechEngine over gRPC against a local fake Speech server', () => {
  let fake: Awaited<ReturnType<typeof startFakeSpeech>>;
  let engine: GoogleSpeechEngine;
  let client: v1.SpeechClient;
  const work = mkdtempSync(path.join(tmpdir(), 'vrs-google-'));
  const wav = path.join(work, 'audio.wav');
  const localStorage = { driver: 'local' } as unknown as Storage;

  beforeAll(async () => {
    fake = await startFakeSpeech();
    client = new v1.SpeechClient({ apiEndpoint: '127.0.0.1', port: fake.port, sslCreds: grpc.credentials.createInsecure() });
    engine = new GoogleSpeechEngine(client, localStorage);
    writeFileSync(wav, Buffer.alloc(44 + 32_000 * 3));
  });

  afterAll(async () => {
    await client?.close();
    await fake?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const request = (overrides: Partial<EngineRequest> = {}): EngineRequest => ({
    wavFile: wav,
    durationSeconds: 3,
    languageCode: null,
    speakerLabels: false,
    speakersExpected: null,
    punctuate: true,
    stagingKey: 'ws_1/tasks/task_1.wav',
    signal: new AbortController().signal,
    onProgress: () => undefined,
    ...overrides,
  });

  it('sends inline LINEAR16 with word offsets, detects among four languages, and reads each result as a segment', async () => {
    fake.answer({
      response: {
        results: [
          { alternatives: [{ transcript: 'Bonjour tout', confidence: 0.8, words: [word('Bonjour', 0.1, 0.6), word('tout', 0.7, 1.05)] }], languageCode: 'fr-fr' },
          { alternatives: [{ transcript: 'le monde.', confidence: 0.7, words: [word('le', 1.5, 1.6), word('monde.', 1.6, 2.25)] }], languageCode: 'fr-fr' },
        ],
      },
    });
    const transcript = await engine.transcribe(request());
    const sent = fake.requests[fake.requests.length - 1];
    expect(sent.config).toMatchObject({
      encoding: 'LINEAR16',
      sampleRateHertz: 16000,
      languageCode: 'en-US',
      alternativeLanguageCodes: ['es-ES', 'fr-FR', 'de-DE'],
      enableWordTimeOffsets: true,
      enableAutomaticPunctuation: true,
    });
    expect(sent.config.diarizationConfig).toBeUndefined();
    expect(sent.audio.content.length).toBe(44 + 32_000 * 3);
    expect(transcript.language_code).toBe('fr-FR');
    expect(transcript.segments).toEqual([
      [
        { text: 'Bonjour', start: 100, end: 600, confidence: 0.9, speaker: null },
        { text: 'tout', start: 700, end: 1050, confidence: 0.9, speaker: null },
      ],
      [
        { text: 'le', start: 1500, end: 1600, confidence: 0.9, speaker: null },
        { text: 'monde.', start: 1600, end: 2250, confidence: 0.9, speaker: null },
      ],
    ]);
  });

  it('takes diarization labels from the final result only, and utterances follow the speaker turns', async () => {
    fake.answer({
      response: {
        results: [
          { alternatives: [{ transcript: 'hi there', words: [word('hi', 0, 0.3), word('there', 0.3, 0.6)] }], languageCode: 'en-us' },
          { alternatives: [{ transcript: 'hello', words: [word('hello', 1, 1.4)] }], languageCode: 'en-us' },
          {
            alternatives: [{ transcript: 'hi there hello', words: [word('hi', 0, 0.3, 1), word('there', 0.3, 0.6, 1), word('hello', 1, 1.4, 2)] }],
            languageCode: 'en-us',
          },
        ],
      },
    });
    const transcript = await engine.transcribe(request({ languageCode: 'en-US', speakerLabels: true, speakersExpected: 2 }));
    const sent = fake.requests[fake.requests.length - 1];
    expect(sent.config).toMatchObject({ languageCode: 'en-US', diarizationConfig: { enableSpeakerDiarization: true, minSpeakerCount: 2, maxSpeakerCount: 2 } });
    expect(sent.config.alternativeLanguageCodes ?? []).toEqual([]);
    expect(transcript.segments.flat().map((w) => [w.text, w.speaker])).toEqual([['hi', 'A'], ['there', 'A'], ['hello', 'B']]);
    const built = buildTranscript(transcript, 3);
    expect(built.utterances.map((u) => [u.speaker, u.text, u.start, u.end])).toEqual([['A', 'hi there', 0, 600], ['B', 'hello', 1000, 1400]]);
    expect(built.language_code).toBe('en-US');
  });

  it('turns a refusal into a task failure with its reason, and needs Cloud Storage for audio over 10 MB', async () => {
    fake.answer({ error: { code: grpc.status.INVALID_ARGUMENT, details: 'Invalid recognition config' } });
    const refused = await engine.transcribe(request()).catch((error) => error);
    expect(refused).toBeInstanceOf(TaskFailure);
    expect(refused).toMatchObject({ code: 'invalid_source', message: expect.stringContaining('INVALID_ARGUMENT') });

    fake.answer({ error: { code: grpc.status.PERMISSION_DENIED, details: 'no access' } });
    expect(await engine.transcribe(request()).catch((error) => error)).toMatchObject({ code: 'internal', message: expect.stringContaining('PERMISSION_DENIED') });

    const long = path.join(work, 'long.wav');
    writeFileSync(long, Buffer.alloc(GOOGLE_INLINE_AUDIO_BYTES + 1));
    const before = fake.requests.length;
    const tooLong = await engine.transcribe(request({ wavFile: long, durationSeconds: 330 })).catch((error) => error);
    expect(tooLong).toMatchObject({ code: 'unsupported_feature', message: expect.stringContaining('GCS_BUCKET') });
    expect(fake.requests.length).toBe(before);
  });
});
