// Text around a language model: its tokenizer (a Hugging Face tokenizer.json
// read by @huggingface/tokenizers) and the decoding of generated ids into text
// pieces as they arrive: a piece never ends inside a UTF-8 character (byte-level
// BPE splits them across tokens) or inside what may become a stop string.
//
// The tokenizer library is @huggingface/tokenizers, vendored into lib/vendor/ by
// scripts/build_npm.sh and imported when a tokenizer is first loaded.
import type { Tokenizer } from './vendor/tokenizers.js';
import { IRFormatError, TorchIrError } from './errors.js';
import { parseJsonLoose } from './json.js';
import { loadControls, readIrText } from './load_sources.js';
import type { IRSource, Progress } from './model_types.js';

// Special tokens that end a text, by the names tokenizers give them.
const END_TOKENS = ['<|endoftext|>', '</s>', '<|end_of_text|>', '<|eot_id|>', '<|im_end|>', '<eos>', '<|end|>'];

let library: Promise<typeof import('./vendor/tokenizers.js')> | null = null;

/** A loaded tokenizer.json: text <-> token ids. Made by loadTokenizer (or loadLM's `tokenizer`). */
export class TextTokenizer {
  /** The ids of the tokenizer's end-of-text special tokens (generation stops on them by default). */
  readonly endIds: readonly number[];
  readonly vocabSize: number;
  private readonly tok: Tokenizer;

  /** @internal */
  static async _fromJSON(json: Record<string, unknown>): Promise<TextTokenizer> {
    let lib: typeof import('./vendor/tokenizers.js');
    try {
      lib = await (library ??= import('./vendor/tokenizers.js'));
    } catch (e) {
      library = null;
      throw new TorchIrError(`cannot load the tokenizer library (lib/vendor/tokenizers.js): ${(e as Error).message}`, { cause: e });
    }
    return new TextTokenizer(new lib.Tokenizer(json, {}));
  }

  private constructor(tok: Tokenizer) {
    this.tok = tok;
    const ends: number[] = [];
    for (const name of END_TOKENS) {
      const id = this.tok.token_to_id(name);
      if (id !== undefined) ends.push(id);
    }
    this.endIds = Object.freeze(ends);
    this.vocabSize = this.tok.get_vocab(true).size;
  }

  /** Text -> ids (no special tokens added: a prompt continues as written). */
  encode(text: string): number[] {
    return this.tok.encode(text, { add_special_tokens: false }).ids;
  }

  /** Ids -> text, special tokens skipped. */
  decode(ids: readonly number[]): string {
    return this.tok.decode(ids as number[], { skip_special_tokens: true, clean_up_tokenization_spaces: false });
  }
}

/**
 * A tokenizer.json (Hugging Face `tokenizers` format) in loadIR's forms (path/URL, Blob, bytes,
 * JSON text or object) -> a TextTokenizer; a TextTokenizer passes through (loadLM's `tokenizer`).
 * IRFormatError when it is not one.
 */
export async function loadTokenizer(src: IRSource | TextTokenizer, options: {
  onProgress?: (event: Progress) => void; signal?: AbortSignal; fetchOptions?: RequestInit;
} = {}): Promise<TextTokenizer> {
  if (src instanceof TextTokenizer) return src;
  const load = loadControls(options, 'loadTokenizer');
  const { onProgress } = options;
  let text: string;
  try {
    text = await readIrText(src as IRSource, onProgress, load);
  } catch (e) {
    load.signal?.throwIfAborted();
    throw new IRFormatError(`tokenizer: ${(e as Error).message.replace(/IR file/, 'tokenizer file')}`, { cause: e });
  }
  let json: unknown;
  try {
    json = parseJsonLoose(text);
  } catch (e) {
    throw new IRFormatError(`tokenizer: not JSON (${(e as Error).message})`, { cause: e });
  }
  const model = (json as { model?: { type?: unknown; vocab?: unknown } } | null)?.model;
  if (!json || typeof json !== 'object' || !model || typeof model !== 'object' || !model.vocab) {
    throw new IRFormatError('tokenizer: not a Hugging Face tokenizer.json (no model.vocab)');
  }
  try {
    return await TextTokenizer._fromJSON(json as Record<string, unknown>);
  } catch (e) {
    if (e instanceof TorchIrError) throw e;
    throw new IRFormatError(`tokenizer: ${(e as Error).message}`, { cause: e });
  }
}

// The longest suffix of `text` that is a proper prefix of a stop string: held back,
// since the next token may complete the stop string.
function heldBack(text: string, stops: readonly string[]): number {
  let keep = 0;
  for (const s of stops) {
    for (let n = Math.min(s.length - 1, text.length); n > keep; --n) {
      if (text.endsWith(s.slice(0, n))) {
        keep = n;
        break;
      }
    }
  }
  return keep;
}

/**
 * Generated ids -> text pieces, one per token (possibly empty). The text so far is
 * decoded from all ids (decoders join tokens context-dependently), and a piece is
 * what was not emitted yet, less an unfinished UTF-8 character (U+FFFD at the end)
 * and less a possible start of a stop string. `stopped` once a stop string appears:
 * the text ends before it.
 */
export class TextStream {
  /** The emitted text (the continuation so far). */
  text = '';
  stopped = false;
  private readonly ids: number[] = [];

  constructor(private readonly tokenizer: TextTokenizer, private readonly stops: readonly string[] = []) {}

  /** Adds a token; returns the piece of text it completes. */
  push(id: number): string {
    this.ids.push(id);
    return this.emit(false);
  }

  /** After the last token: whatever was held back. */
  flush(): string {
    return this.emit(true);
  }

  private emit(final: boolean): string {
    if (this.stopped) return '';
    let full = this.tokenizer.decode(this.ids);
    for (const s of this.stops) {
      const at = full.indexOf(s);
      if (at >= 0) {
        full = full.slice(0, at);
        this.stopped = true;
      }
    }
    let end = full.length;
    if (!final && !this.stopped) {
      while (end > 0 && full.charCodeAt(end - 1) === 0xfffd) --end;
      end -= heldBack(full.slice(0, end), this.stops);
    }
    // A later decode can differ from an earlier one before the end only through the
    // held-back part; text already emitted is kept.
    if (end <= this.text.length) return '';
    const piece = full.slice(this.text.length, end);
    this.text += piece;
    return piece;
  }
}
