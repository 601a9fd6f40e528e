import { describe, expect, it } from 'vitest';
import { importedNames } from '../../scripts/cli-bundle.mjs';

// The CLI bundle hands a built-in module to an import of names as a module of exactly those names
// (scripts/cli-bundle.mjs), which the names it reads from the importer decide. A name it misses in an
// import fails the build; anything it cannot read must keep esbuild's interop, which has every name.

describe('the names a file imports from a built-in module (the CLI bundle)', () => {
  it('reads named imports across statements and lines, by their exported name, without types', () => {
    const source = [
      "import type { Stats } from 'node:fs';",
      "import { readFile, type Dirent } from 'node:fs/promises';",
      "import {\n  statSync,\n  watch as watchPath,\n} from 'node:fs';",
      "import { existsSync } from 'node:fs';",
    ].join('\n');
    expect(importedNames(source, 'node:fs')).toEqual(['existsSync', 'statSync', 'watch']);
    expect(importedNames(source, 'node:fs/promises')).toEqual(['readFile']);
  });

  it('keeps the interop for a whole-module import, a default name or a re-export from the module', () => {
    expect(importedNames("import fs from 'node:fs';", 'node:fs')).toBeUndefined();
    expect(importedNames("import fs, { statSync } from 'node:fs';", 'node:fs')).toBeUndefined();
    expect(importedNames("import * as fs from 'node:fs';", 'node:fs')).toBeUndefined();
    expect(importedNames("import { default as fs } from 'node:fs';", 'node:fs')).toBeUndefined();
    // esbuild would not report a re-exported name the module of names lacks: undefined at run time.
    const reexport = "import { readFileSync } from 'node:fs';\nexport { statSync } from 'node:fs';";
    expect(importedNames(reexport, 'node:fs')).toBeUndefined();
    expect(
      importedNames("import { a } from 'node:fs';\nexport * from 'node:fs';", 'node:fs'),
    ).toBeUndefined();
    expect(importedNames("import 'node:fs';", 'node:fs')).toBeUndefined();
  });
});
