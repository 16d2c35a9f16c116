import type { AppConfig } from '../config/app-config';
import { AssetUrlsService } from './asset-urls.service';
import { assetKindOf, CONTENT_TYPE_PATTERN, storageExtension, uploadKindOf } from '../infra/media/media-types';

const ID = 'asset_01KAB2C3D4E5F6G7H8J9K0MNPQ';
const urls = (publicBaseUrl: string) => new AssetUrlsService({ publicBaseUrl } as AppConfig);

describe('AssetUrlsService', () => {
  it('makes a source_url and recognises only its own', () => {
    const service = urls('https://video.example.com');
    const own = service.sourceUrl(ID);
    expect(own).toBe(`https://video.example.com/v1/workspace/assets/${ID}/content`);
    expect(service.assetIdOf(own)).toBe(ID);
    expect(service.assetIdOf(`https://VIDEO.example.com:443/v1/workspace/assets/${ID}/content?x=1`)).toBe(ID);
    for (const other of [
      `https://evil.example.com/v1/workspace/assets/${ID}/content`, // another host with the same path
      `http://video.example.com/v1/workspace/assets/${ID}/content`, // another scheme
      `https://video.example.com:8443/v1/workspace/assets/${ID}/content`,
      `https://video.example.com/v1/workspace/assets/${ID}`,
      `https://video.example.com/v1/workspace/assets/${ID}/content/x`,
      'https://video.example.com/v1/workspace/assets/asset_lowercase/content',
      'not a url',
    ]) {
      expect(service.assetIdOf(other)).toBeNull();
    }
  });

  it('keeps a path prefix of PUBLIC_BASE_URL', () => {
    const service = urls('https://example.com/render');
    expect(service.sourceUrl(ID)).toBe(`https://example.com/render/v1/workspace/assets/${ID}/content`);
    expect(service.assetIdOf(service.sourceUrl(ID))).toBe(ID);
    expect(service.assetIdOf(`https://example.com/v1/workspace/assets/${ID}/content`)).toBeNull();
  });
});

describe('media types', () => {
  it('takes the kind from the type, the extension from the name or else the type', () => {
    expect(['video/mp4', 'Audio/MPEG', 'image/svg+xml; charset=utf-8', 'application/pdf'].map(assetKindOf)).toEqual(['video', 'audio', 'image', null]);
    expect(storageExtension('Clip.MOV', 'video/mp4')).toBe('.mov');
    expect(storageExtension(null, 'video/quicktime')).toBe('.mov');
    expect(storageExtension('no-extension', 'video/x-unknown')).toBe('');
    expect(['video/mp4', 'video/mp4; codecs="avc1"', 'video', 'video/mp4\r\nX: y', 'video /mp4'].map((t) => CONTENT_TYPE_PATTERN.test(t))).toEqual([
      true, true, false, false, false,
    ]);
  });

  it('takes font uploads by their type, never by a generic type with a font extension', () => {
    const kinds = [
      'font/woff2', 'Font/TTF', 'application/font-woff', 'application/x-font-ttf', 'application/vnd.ms-opentype',
      'application/octet-stream', 'application/pdf', 'image/png',
    ].map((type) => uploadKindOf(type));
    expect(kinds).toEqual(['font', 'font', 'font', 'font', 'font', null, null, 'image']);
    expect(storageExtension(null, 'font/woff2')).toBe('.woff2');
  });
});
