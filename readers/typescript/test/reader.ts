// The package as an application gets it: the one-file bundle (build/skillc-reader.js), typed by
// the sources. Tests of the API import `reader` from here, so they test what is shipped.
import type * as Reader from "../src/index.js";

export const reader = (await import(new URL("../skillc-reader.js", import.meta.url).href)) as typeof Reader;
