/** The reader's errors: every failure of the reader is a ReaderError (the Python reader's classes, by name). */

export class ReaderError extends Error {
  override get name(): string {
    return this.constructor.name;
  }
}

/** An index file or a JSON object is missing, malformed, or of another format version. */
export class FormatError extends ReaderError {}

/** An object file is missing or its bytes do not match its hash. */
export class IntegrityError extends ReaderError {}

/** dist/ was rebuilt since it was opened and the opened build's objects were pruned. */
export class DistRebuilt extends ReaderError {}

export class UnknownPersona extends ReaderError {
  readonly persona: string;
  readonly known: readonly string[];

  constructor(persona: string, known: readonly string[]) {
    super(`unknown persona ${JSON.stringify(persona)}; known: ${known.join(", ") || "none"}`);
    this.persona = persona;
    this.known = Object.freeze([...known]);
  }
}

/**
 * A command with no entry, or one the persona does not see (persona "*": no entry at all).
 * `suggestions` holds up to three close commands the persona sees, found in a few reads
 * (docs/format.md §12.1); the message names them. `visible` lists every command the persona sees,
 * in code point order; a reader passes it as a function, called on first access, so raising the
 * error costs a few reads at any size. That access may throw the FormatError, IntegrityError or
 * DistRebuilt a full listing meets; a list it returns is kept.
 */
export class UnknownSkill extends ReaderError {
  readonly persona: string;
  readonly command: string;
  readonly suggestions: readonly string[];
  #visible: readonly string[] | null;
  #list: (() => readonly string[]) | null;

  constructor(
    persona: string,
    command: string,
    visible: readonly string[] | (() => readonly string[]),
    suggestions: readonly string[] = [],
  ) {
    const quoted = suggestions.map((s) => JSON.stringify(s));
    const joined =
      quoted.length > 1 ? `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}` : quoted[0];
    super(
      `no skill ${JSON.stringify(command)} for persona ${JSON.stringify(persona)}` +
        (joined === undefined ? "" : ` (did you mean ${joined}?)`),
    );
    this.persona = persona;
    this.command = command;
    this.suggestions = Object.freeze([...suggestions]);
    this.#list = typeof visible === "function" ? visible : null;
    this.#visible = typeof visible === "function" ? null : Object.freeze([...visible]);
  }

  /** Every command the persona sees, read on first access (every shard of the build). */
  get visible(): readonly string[] {
    if (this.#visible === null) {
      const list = this.#list as () => readonly string[];
      this.#visible = Object.freeze([...list()]); // a failure keeps nothing: the next access retries
      this.#list = null;
    }
    return this.#visible;
  }
}

export class UnknownResource extends ReaderError {}

/**
 * A load (or materialize, or the render of a load) by an invoker the build does not allow for the
 * pair: `by` is who asked (`"model"`, a tool call; `"user"`, a slash command), `invokers` who may
 * (`"model"` before `"user"`; empty when neither). Nothing of the skill was read.
 */
export class NotInvocable extends ReaderError {
  readonly persona: string;
  readonly command: string;
  readonly by: string;
  readonly invokers: readonly string[];

  constructor(persona: string, command: string, by: string, invokers: readonly string[]) {
    let reason = "neither the model nor the user may invoke it";
    if (invokers.length) reason = `only the ${invokers[0]} may invoke it`;
    if (invokers.length === 1 && invokers[0] === "user") reason += " (a slash command)";
    super(
      `${JSON.stringify(command)} may not be invoked by the ${by} for persona ${JSON.stringify(persona)}: ${reason}`,
    );
    this.persona = persona;
    this.command = command;
    this.by = by;
    this.invokers = Object.freeze([...invokers]);
  }
}

/** A call needs a persona's plan (to leave an entry out of its catalog, or to give its locations a
 * root) and the build has none: its catalog template does not split (SKC603). */
export class CannotSplit extends ReaderError {}

/** Several builds that cannot be answered as one build compiled from their sources (docs/format.md
 * §16.2): other personas or persona files, a first tier that ranks by priority or does not split. */
export class CannotStack extends ReaderError {}
