/**
 * OpenAPI parameter styles against the "Style Examples" table of OpenAPI 3.1.1
 * (https://spec.openapis.org/oas/v3.1.1.html#style-examples): a parameter `color` with the value
 * "" (empty), "blue", ["blue","black","brown"] and { R: 100, G: 200, B: 150 }. The table prefixes
 * query examples with "?"; here the pairs are joined with "&" without it.
 */
import { describe, expect, it } from "vitest";
import {
  encode,
  type ParameterStyle,
  serializeCookie,
  serializeHeader,
  serializePath,
  serializeQuery,
} from "../../src/toolkits/serialize.js";

const VALUES = { empty: "", string: "blue", array: ["blue", "black", "brown"], object: { R: 100, G: 200, B: 150 } };
type Kind = keyof typeof VALUES;
type Row = [style: NonNullable<ParameterStyle["style"]>, explode: boolean, expected: Partial<Record<Kind, string>>];

// Copied from the table; "n/a" cells are left out (tested below as sent like form).
const PATH_ROWS: Row[] = [
  ["matrix", false, { empty: ";color", string: ";color=blue", array: ";color=blue,black,brown", object: ";color=R,100,G,200,B,150" }],
  ["matrix", true, { empty: ";color", string: ";color=blue", array: ";color=blue;color=black;color=brown", object: ";R=100;G=200;B=150" }],
  ["label", false, { empty: ".", string: ".blue", array: ".blue,black,brown", object: ".R,100,G,200,B,150" }],
  ["label", true, { empty: ".", string: ".blue", array: ".blue.black.brown", object: ".R=100.G=200.B=150" }],
  ["simple", false, { empty: "", string: "blue", array: "blue,black,brown", object: "R,100,G,200,B,150" }],
  ["simple", true, { empty: "", string: "blue", array: "blue,black,brown", object: "R=100,G=200,B=150" }],
];
const QUERY_ROWS: Row[] = [
  ["form", false, { empty: "color=", string: "color=blue", array: "color=blue,black,brown", object: "color=R,100,G,200,B,150" }],
  ["form", true, { empty: "color=", string: "color=blue", array: "color=blue&color=black&color=brown", object: "R=100&G=200&B=150" }],
  ["spaceDelimited", false, { array: "color=blue%20black%20brown", object: "color=R%20100%20G%20200%20B%20150" }],
  ["pipeDelimited", false, { array: "color=blue%7Cblack%7Cbrown", object: "color=R%7C100%7CG%7C200%7CB%7C150" }],
  ["deepObject", true, { object: "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150" }],
];

function cases(rows: Row[]) {
  return rows.flatMap(([style, explode, expected]) =>
    Object.entries(expected).map(([kind, text]) => ({ style, explode, kind: kind as Kind, text: text! })),
  );
}

describe("the OpenAPI 3.1.1 style examples table", () => {
  it.each(cases(PATH_ROWS))("path $style explode=$explode $kind → $text", ({ style, explode, kind, text }) => {
    expect(serializePath({ in: "path", name: "color", style, explode }, VALUES[kind])).toBe(text);
  });

  it.each(cases(QUERY_ROWS))("query $style explode=$explode $kind → $text", ({ style, explode, kind, text }) => {
    expect(serializeQuery({ in: "query", name: "color", style, explode }, VALUES[kind]).join("&")).toBe(text);
  });

  it.each(cases(PATH_ROWS.filter(([style]) => style === "simple")))(
    "header simple explode=$explode $kind → $text (headers are not percent-encoded, and these values need none)",
    ({ explode, kind, text }) => {
      expect(serializeHeader({ in: "header", name: "color", explode }, VALUES[kind])).toBe(text);
    },
  );
});

describe("defaults, as the Parameter Object says", () => {
  it("path and header default to simple, not exploded", () => {
    expect(serializePath({ in: "path", name: "color" }, VALUES.object)).toBe("R,100,G,200,B,150");
    expect(serializeHeader({ in: "header", name: "color" }, VALUES.object)).toBe("R,100,G,200,B,150");
  });

  it("query defaults to form, exploded; other query styles default to not exploded", () => {
    expect(serializeQuery({ in: "query", name: "color" }, VALUES.array)).toEqual(["color=blue", "color=black", "color=brown"]);
    expect(serializeQuery({ in: "query", name: "color", style: "form" }, VALUES.object)).toEqual(["R=100", "G=200", "B=150"]);
    expect(serializeQuery({ in: "query", name: "color", style: "pipeDelimited" }, VALUES.array)).toEqual(["color=blue%7Cblack%7Cbrown"]);
  });

  it("deepObject writes an object the same way whatever explode says (false is undefined by the spec)", () => {
    expect(serializeQuery({ in: "query", name: "color", style: "deepObject" }, VALUES.object).join("&")).toBe(
      "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150",
    );
  });
});

describe("combinations the table leaves undefined are sent as form would send them", () => {
  it.each([
    ["spaceDelimited", false, "string", "color=blue"],
    ["spaceDelimited", true, "array", "color=blue&color=black&color=brown"],
    ["pipeDelimited", true, "object", "R=100&G=200&B=150"],
    ["pipeDelimited", false, "empty", "color="],
    ["deepObject", true, "string", "color=blue"],
    ["deepObject", true, "array", "color=blue&color=black&color=brown"],
  ] as const)("query %s explode=%s %s → %s", (style, explode, kind, text) => {
    expect(serializeQuery({ in: "query", name: "color", style, explode }, VALUES[kind]).join("&")).toBe(text);
  });
});

describe("cookies (form, joined into one Cookie header by the runner)", () => {
  it.each([
    [true, "string", ["color=blue"]],
    [true, "array", ["color=blue", "color=black", "color=brown"]],
    [true, "object", ["R=100", "G=200", "B=150"]],
    [false, "array", ["color=blue,black,brown"]],
    [false, "object", ["color=R,100,G,200,B,150"]],
    [true, "empty", ["color="]],
  ] as const)("explode=%s %s", (explode, kind, pairs) => {
    expect(serializeCookie({ in: "cookie", name: "color", explode }, VALUES[kind])).toEqual(pairs);
  });

  it("defaults to exploded and percent-encodes what a cookie value cannot hold", () => {
    expect(serializeCookie({ in: "cookie", name: "color" }, VALUES.array)).toEqual(["color=blue", "color=black", "color=brown"]);
    expect(serializeCookie({ in: "cookie", name: "session" }, "a b;c,d=é")).toEqual(["session=a%20b%3Bc%2Cd%3D%C3%A9"]);
  });
});

describe("encoding", () => {
  it("percent-encodes everything but RFC 3986's unreserved characters, in names and values", () => {
    expect(encode("a-z.A_Z~0 9/?#[]@!$&'()*+,;=%é")).toBe("a-z.A_Z~0%209%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%25%C3%A9");
    expect(serializeQuery({ in: "query", name: "a b[c]" }, "x&y=z")).toEqual(["a%20b%5Bc%5D=x%26y%3Dz"]);
    expect(serializePath({ in: "path", name: "id" }, "a/b c")).toBe("a%2Fb%20c");
    expect(serializePath({ in: "path", name: "id", style: "matrix" }, ["a,b", "c;d"])).toBe(";id=a%2Cb,c%3Bd");
  });

  it("allowReserved keeps the reserved characters a query value may carry, and percent-encoded triples", () => {
    const param: ParameterStyle = { in: "query", name: "path", allowReserved: true };
    expect(serializeQuery(param, "a/b:c?d@e!$'()*,;%2F")).toEqual(["path=a/b:c?d@e!$'()*,;%2F"]);
    // `[`, `]`, `#` are not allowed in a query; `&`, `=`, `+` mean something in form syntax; a lone % is not a triple.
    expect(serializeQuery(param, "[x]#&=+ 50%")).toEqual(["path=%5Bx%5D%23%26%3D%2B%2050%25"]);
    expect(serializeQuery(param, "%2z%a")).toEqual(["path=%252z%25a"]);
    expect(serializeQuery({ in: "query", name: "path" }, "a/b")).toEqual(["path=a%2Fb"]);
  });

  it("encodes delimiters inside values, so the structure survives", () => {
    expect(serializeQuery({ in: "query", name: "c", explode: false }, ["a,b", "c"])).toEqual(["c=a%2Cb,c"]);
    expect(serializeQuery({ in: "query", name: "c", style: "pipeDelimited" }, ["a|b", "c"])).toEqual(["c=a%7Cb%7Cc"]);
    expect(serializeQuery({ in: "query", name: "c", style: "spaceDelimited" }, ["a b", "c"])).toEqual(["c=a%20b%20c"]);
  });

  it("headers are not percent-encoded", () => {
    expect(serializeHeader({ in: "header", name: "X-Tags" }, ["a b", "c/d"])).toBe("a b,c/d");
    expect(serializeHeader({ in: "header", name: "X-Map", explode: true }, { a: "x y" })).toBe("a=x y");
  });
});

describe("values inside arrays and objects", () => {
  it("leaves out null and undefined items and properties", () => {
    expect(serializeQuery({ in: "query", name: "c" }, ["a", null, "b", undefined])).toEqual(["c=a", "c=b"]);
    expect(serializePath({ in: "path", name: "c" }, { a: 1, b: null })).toBe("a,1");
    expect(serializeQuery({ in: "query", name: "c", style: "deepObject" }, { a: 1, b: undefined })).toEqual(["c%5Ba%5D=1"]);
  });

  it("sends nested arrays and objects as JSON text, except deepObject, which nests brackets and repeats arrays", () => {
    expect(serializeQuery({ in: "query", name: "c" }, [{ a: 1 }])).toEqual([`c=${encodeURIComponent('{"a":1}')}`]);
    expect(serializeQuery({ in: "query", name: "f", style: "deepObject" }, { a: { b: 1, c: [2, 3] }, d: ["x", "y"] })).toEqual([
      "f%5Ba%5D%5Bb%5D=1",
      "f%5Ba%5D%5Bc%5D=2",
      "f%5Ba%5D%5Bc%5D=3",
      "f%5Bd%5D=x",
      "f%5Bd%5D=y",
    ]);
  });

  it("writes numbers and booleans as JSON does", () => {
    expect(serializeQuery({ in: "query", name: "n" }, 0)).toEqual(["n=0"]);
    expect(serializeQuery({ in: "query", name: "b" }, false)).toEqual(["b=false"]);
    expect(serializePath({ in: "path", name: "n", style: "label" }, 1.5)).toBe(".1.5");
  });
});
