import { Module } from '@nestjs/common';
import { PlaygroundController } from './playground.controller';

/** The browser playground (/playground) and its media proxy; served only where the REST API is. */
@Module({ controllers: [PlaygroundController] })
export class PlaygroundModule {}
