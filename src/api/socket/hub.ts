// The fan-out hub: which topics have subscribers, and publishing one frame per topic. The frame
// is serialized once and handed to uWebSockets.js's native pub/sub (src/api/server.ts gives the
// publish function), which copies it to every subscribed socket without a JavaScript loop over
// sockets. The feed asks `has` before it builds a payload, so traffic nobody subscribed to costs
// nothing but a map lookup.
import { encodeBroadcast } from './protocol.js';
import type { TopicKind } from './topics.js';

/** Sends one frame to every socket subscribed to `topic` (the exact string they joined). */
export type Publish = (topic: string, frame: string) => void;

/** The parts of a parsed topic the hub keeps. */
export interface HubTopic {
  kind: TopicKind;
  canonical: string;
  address?: string;
}

export class Hub {
  /**
   * Canonical key -> the spellings clients joined it under -> subscriber count. A client that
   * joins `addresses:0xAbC…` gets frames whose topic is that string (Phoenix's client matches
   * topics exactly), so each spelling is published separately; most topics have one.
   */
  private readonly topics = new Map<string, Map<string, number>>();
  /** Addresses with subscribers, per kind of address topic. */
  private readonly byKind = { address: new Set<string>(), token: new Set<string>(), miner: new Set<string>() };
  private publisher: Publish | undefined;
  /** Frames handed to the publisher (for tests and the benchmark). */
  published = 0;

  constructor(publish?: Publish) {
    this.publisher = publish;
  }

  setPublisher(publish: Publish | undefined): void {
    this.publisher = publish;
  }

  add(t: HubTopic, spelling: string): void {
    let spellings = this.topics.get(t.canonical);
    if (!spellings) {
      spellings = new Map();
      this.topics.set(t.canonical, spellings);
      if (t.address && (t.kind === 'address' || t.kind === 'token' || t.kind === 'miner')) this.byKind[t.kind].add(t.address);
    }
    spellings.set(spelling, (spellings.get(spelling) ?? 0) + 1);
  }

  remove(t: HubTopic, spelling: string): void {
    const spellings = this.topics.get(t.canonical);
    const n = spellings?.get(spelling);
    if (!spellings || n === undefined) return;
    if (n > 1) spellings.set(spelling, n - 1);
    else spellings.delete(spelling);
    if (spellings.size) return;
    this.topics.delete(t.canonical);
    if (t.address && (t.kind === 'address' || t.kind === 'token' || t.kind === 'miner')) this.byKind[t.kind].delete(t.address);
  }

  /** Whether anyone subscribed to this canonical topic. */
  has(canonical: string): boolean {
    return this.topics.has(canonical);
  }

  /** Lower-case addresses with at least one subscriber on `addresses:`, `tokens:` or `blocks:` (miners). */
  subscribed(kind: 'address' | 'token' | 'miner'): ReadonlySet<string> {
    return this.byKind[kind];
  }

  /** Publishes `event` with this payload (JSON text) to every spelling of the topic; returns the frames sent. */
  broadcast(canonical: string, event: string, payloadJson: string): number {
    const spellings = this.topics.get(canonical);
    if (!spellings || !this.publisher) return 0;
    for (const spelling of spellings.keys()) this.publisher(spelling, encodeBroadcast(spelling, event, payloadJson));
    this.published += spellings.size;
    return spellings.size;
  }

  /** Distinct topics with subscribers, and subscriptions in all. */
  stats(): { topics: number; subscriptions: number } {
    let subscriptions = 0;
    for (const s of this.topics.values()) for (const n of s.values()) subscriptions += n;
    return { topics: this.topics.size, subscriptions };
  }
}
