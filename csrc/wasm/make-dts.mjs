// Writes kibitz.d.ts: the template csrc/wasm/kibitz.d.ts with the search parameters, read from the
// built engine's table, as the fields of SearchOptions and SearchParams (declared once, in C++).
//   node make-dts.mjs <template> <built kibitz.mjs> <output>
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [template, module, output] = process.argv.slice(2);
const { load } = await import(pathToFileURL(module));
const parameters = (await load()).parameters();

function type(p, given) {
  if (p.kind === "str") return p.choices.map((c) => JSON.stringify(c)).join(" | ");
  const flag = p.kind === "int" && p.low === 0 && p.high === 1;
  if (!given) return p.name === "seed" ? "number | bigint" : "number";
  return ["number", ...(p.name === "seed" ? ["bigint"] : []), ...(flag ? ["boolean"] : []), "string"].join(" | ");
}

function fields(given) {
  return parameters.map((p) => {
    const range = p.kind === "str" ? "" : ` (${p.low}..${p.high}, default ${p.default})`;
    const names = [p.option, ...p.aliases].filter(Boolean);
    const also = given && names.length ? ` Also: ${names.join(", ")}.` : "";
    return `  /** ${p.help.replaceAll("*/", "* /")}${range}.${also} */\n  ${p.name}${given ? "?" : ""}: ${type(p, given)};`;
  });
}

const text = readFileSync(template, "utf8")
  .replace("  // @options\n", fields(true).join("\n") + "\n")
  .replace("  // @params\n", fields(false).join("\n") + "\n");
writeFileSync(output, text);
