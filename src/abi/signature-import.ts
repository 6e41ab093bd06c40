// Reads a signature dump for `explorer signatures import`: the ethereum-lists/4bytes layout (a
// directory of files named by the selector's 8 hex digits, holding signatures separated by ';', as
// in its `signatures/` and `with_parameter_names/` folders), or a text file of lines
// `selector,signature` (also `selector signature`, and ';'-separated signatures on one line; a
// 64-digit selector is an event topic). Each signature is hashed again and kept only when it gives
// its selector: a dump cannot name a selector with another's signature.
import fs from 'node:fs';
import path from 'node:path';
import { canonicalSignature, parseSignature, selectorOf } from './item-text.js';

export interface ImportedSignature {
  selector: string;
  /** Human-readable item ('function transfer(address to, uint256 value)'). */
  item: string;
}

export interface ImportReport {
  signatures: ImportedSignature[];
  /** Entries read. */
  read: number;
  /** Entries that did not parse as a signature. */
  unparsed: number;
  /** Entries whose signature does not hash to their selector. */
  mismatched: number;
}

const HEX_NAME = /^(?:0x)?([0-9a-fA-F]{8}|[0-9a-fA-F]{64})$/;
const LINE = /^(?:0x)?([0-9a-fA-F]{8}|[0-9a-fA-F]{64})\s*[,\s]\s*(.+)$/;

class Reader {
  readonly report: ImportReport = { signatures: [], read: 0, unparsed: 0, mismatched: 0 };
  private readonly seen = new Set<string>();

  add(hex: string, text: string): void {
    const selector = '0x' + hex.toLowerCase();
    for (const raw of text.split(';')) {
      const sig = raw.trim();
      if (!sig) continue;
      this.report.read++;
      const item = parseSignature(sig, selector.length === 10 ? 'function' : 'event');
      if (!item) {
        this.report.unparsed++;
        continue;
      }
      let hashed: string;
      try {
        hashed = selectorOf(item);
      } catch {
        this.report.unparsed++;
        continue;
      }
      if (hashed !== selector) {
        this.report.mismatched++;
        continue;
      }
      const text = `${item.type} ${sig}`;
      // One entry per signature: the first read (the named form, when the dump has both) is kept.
      const key = `${selector} ${canonicalSignature(item)}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.report.signatures.push({ selector, item: text });
    }
  }
}

/** The 4bytes repository's folders, named forms first. */
const FOLDERS = ['with_parameter_names', 'signatures', 'event_signatures'];

function readDirectory(dir: string, r: Reader): void {
  const rank = (n: string) => (FOLDERS.includes(n) ? FOLDERS.indexOf(n) : FOLDERS.length);
  for (const name of fs.readdirSync(dir).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))) {
    const p = path.join(dir, name);
    const st = fs.statSync(p);
    // The 4bytes repository: its folders of selector-named files.
    if (st.isDirectory()) {
      if (FOLDERS.includes(name)) readDirectory(p, r);
      continue;
    }
    const m = HEX_NAME.exec(name);
    if (m) r.add(m[1]!, fs.readFileSync(p, 'utf8'));
    else if (/\.(csv|txt|tsv)$/i.test(name)) readLines(fs.readFileSync(p, 'utf8'), r);
  }
}

function readLines(text: string, r: Reader): void {
  for (const line of text.split(/\r?\n/)) {
    const l = line.trim();
    if (!l || l.startsWith('#')) continue;
    const m = LINE.exec(l);
    if (m) r.add(m[1]!, m[2]!.replace(/^"|"$/g, ''));
    else if (!/^selector\s*[,\s]/i.test(l)) {
      r.report.read++;
      r.report.unparsed++;
    }
  }
}

/** Every signature of a dump (a file or a directory). */
export function readSignatureDump(target: string): ImportReport {
  const r = new Reader();
  if (fs.statSync(target).isDirectory()) readDirectory(target, r);
  else readLines(fs.readFileSync(target, 'utf8'), r);
  return r.report;
}
