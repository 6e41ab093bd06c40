// The verification service of an API process: accepts a verification (checks what can be checked
// at once: an address that is a contract and not yet fully verified, and a place in the queue of
// src/verify/verification-queue.ts: one verification per client, a fair share per network, served
// network by network), records it as a job (a guid a client can poll), runs it in the background
// when its turn comes (compile in the compile process, match with lib-sourcify against the node),
// stores the verified contract and says what happened ('verified' events: the API clears its
// caches and tells the websocket). One job runs at a time: the compile process is one.
import { EventEmitter } from 'node:events';
import type { SolidityJsonInput } from '@ethereum-sourcify/compilers-types';
import type { SourcifyChain } from '@ethereum-sourcify/lib-sourcify';
import type { PgStore } from '../storage/postgres/store.js';
import { failStaleJobs, finishJob, saveVerified, startJob, verifiedRow } from '../storage/postgres/verified.js';
import type { Logger } from '../log.js';
import type { CompilerPool } from './compiler-pool.js';
import { VerificationFailed, compilationTarget, verifySolidity, type VerifiedContract } from './verifier.js';
import { QueueRefused, VerificationQueue, type QueueLimits, type Ticket } from './verification-queue.js';
import { clientNetwork } from '../ratelimit/rate-limiter.js';
import { indexContractMethods } from './contract-methods.js';

/** A refusal before anything runs: the message is the client's to read. */
export class VerificationRefused extends Error {
  constructor(
    message: string,
    readonly kind: 'already-verified' | 'not-a-contract' | 'busy' | 'invalid',
    /** 'busy': when a retry may find a place in the queue (seconds). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface SolidityJob {
  address: string;
  compilerVersion: string;
  contractName: string;
  input: SolidityJsonInput;
  /** Who asked (an API key id or an IP): one verification at a time each. */
  client: string;
  /** The address it asked from: its network (/24, /64) gets a share of the queue. */
  ip: string;
  /** Blockscout's license_type (a name of the config's license_types), when given. */
  licenseType?: string;
  /** ABI-encoded constructor arguments the client says were used (hex), when it says so. */
  constructorArgs?: string;
}

export interface VerifiedEvent {
  address: string;
  guid: string;
  ok: boolean;
  /** The failure's message (ok false). */
  message?: string;
  result?: VerifiedContract;
}

export interface VerificationServiceOptions {
  pg: PgStore;
  pool: CompilerPool;
  chain: SourcifyChain;
  log: Logger;
  /** Whether the stores know `address` as a contract, and its creation transaction. */
  contractOf(address: string): Promise<{ isContract: boolean; creationTx: string | null }>;
  /** The queue's bounds (src/verify/verification-queue.ts); timeoutMs is the compile's. */
  queue: QueueLimits;
}

export class VerificationService extends EventEmitter {
  readonly queue: VerificationQueue;

  constructor(private readonly o: VerificationServiceOptions) {
    super();
    this.queue = new VerificationQueue(o.queue);
  }

  /** Jobs an earlier process left pending are failed: nothing will finish them. */
  async start(): Promise<void> {
    await failStaleJobs(this.o.pg, new Date());
    // Contracts verified before the signatures table: in the background (a large instance's take a while).
    void indexContractMethods(this.o.pg, this.o.log).catch((e) => this.o.log.warn('adding verified contracts\' methods failed', { error: e instanceof Error ? e.message : String(e) }));
  }

  /** Accepts a Solidity standard-JSON verification; returns its guid at once (the work goes on). */
  async submitSolidity(job: SolidityJob): Promise<string> {
    const address = job.address.toLowerCase();
    const existing = await verifiedRow(this.o.pg, address);
    if (existing?.match === 'full') throw new VerificationRefused('Smart-contract already verified.', 'already-verified');
    const c = await this.o.contractOf(address);
    if (!c.isContract) throw new VerificationRefused('Address is not a smart-contract', 'not-a-contract');
    // What can be told from the input alone is told now, not after the job (a contract name no source declares).
    try {
      compilationTarget(job.input, job.contractName);
    } catch (e) {
      if (e instanceof VerificationFailed) throw new VerificationRefused(e.message, 'invalid');
      throw e;
    }
    let ticket: Ticket;
    try {
      ticket = this.queue.enter(job.client, clientNetwork(job.ip));
    } catch (e) {
      if (e instanceof QueueRefused) throw new VerificationRefused(e.message, 'busy', e.retryAfterSeconds);
      throw e;
    }
    // Blockscout's uid: the address's 40 hex digits and the time in hex (here milliseconds, so two
    // submissions in one second stay apart).
    const guid = `${address.slice(2)}${Date.now().toString(16)}`;
    try {
      await startJob(this.o.pg, guid, address);
    } catch (e) {
      this.queue.leave(ticket);
      throw e;
    }
    void ticket.turn.then(() => this.run(guid, address, c.creationTx, job)).finally(() => this.queue.leave(ticket));
    return guid;
  }

  private async run(guid: string, address: string, creationTx: string | null, job: SolidityJob): Promise<void> {
    let event: VerifiedEvent;
    try {
      await this.o.pool.available(job.compilerVersion);
      const r = await verifySolidity({ address, compilerVersion: job.compilerVersion, contractName: job.contractName, input: job.input, creationTx }, { compiler: this.o.pool, chain: this.o.chain });
      const given = job.constructorArgs?.trim().replace(/^0x/i, '').toLowerCase();
      const found = r.constructorArgs?.replace(/^0x/i, '').toLowerCase();
      // Arguments given must be the creation's (when the creation was matched and so they are known).
      if (given && found !== undefined && given !== found) {
        throw new VerificationFailed(`the constructor arguments given (0x${given.slice(0, 64)}${given.length > 64 ? '…' : ''}) are not those of the creation transaction`);
      }
      const s = r.settings as { evmVersion?: string; optimizer?: { enabled?: boolean; runs?: number }; viaIR?: boolean };
      await saveVerified(this.o.pg, {
        address_hash: address,
        name: r.name,
        file_path: r.filePath,
        language: r.language,
        compiler_version: r.compilerVersion,
        evm_version: s.evmVersion ?? null,
        optimization: s.optimizer?.enabled === true,
        optimization_runs: s.optimizer?.enabled ? (s.optimizer.runs ?? 200) : null,
        via_ir: s.viaIR === true,
        settings: r.settings,
        sources: r.sources,
        abi: r.abi,
        constructor_args: r.constructorArgs,
        libraries: r.libraries,
        match: r.match,
        runtime_match: r.runtimeMatch,
        creation_match: r.creationMatch,
        twin: r.twin,
        license_type: job.licenseType ?? 'none',
      });
      // Its selectors and topics name other contracts' calls and logs too (src/abi/naming.ts).
      await indexContractMethods(this.o.pg).catch((e) => this.o.log.warn('adding the contract\'s methods to the signatures failed', { error: e instanceof Error ? e.message : String(e) }));
      await finishJob(this.o.pg, guid, true, null);
      event = { address, guid, ok: true, result: r };
      this.o.log.info('contract verified', { address, name: r.name, match: r.match });
    } catch (e) {
      // The refusals of the verifier, compiler store and pool are written for the client.
      const message = e instanceof Error ? e.message : String(e);
      await finishJob(this.o.pg, guid, false, message.slice(0, 2000)).catch((err) => this.o.log.error('could not record a verification failure', { guid, error: String(err) }));
      event = { address, guid, ok: false, message };
      this.o.log.info('verification failed', { address, error: message.slice(0, 300) });
    }
    this.emit('verified', event);
  }
}
