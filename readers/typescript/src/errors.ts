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

/** A command the persona does not see; `visible` lists the commands it does see, in order. */
export class UnknownSkill extends ReaderError {
  readonly persona: string;
  readonly command: string;
  readonly visible: readonly string[];

  constructor(persona: string, command: string, visible: readonly string[]) {
    const shown = visible.slice(0, 50).join(", ") + (visible.length > 50 ? ", ..." : "");
    super(
      `no skill ${JSON.stringify(command)} for persona ${JSON.stringify(persona)}; ` +
        `visible skills: ${shown || "none"}`,
    );
    this.persona = persona;
    this.command = command;
    this.visible = Object.freeze([...visible]);
  }
}

export class UnknownResource extends ReaderError {}
