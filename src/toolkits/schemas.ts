import { z } from "zod";
import { assertCheckable, zodValidatorOf } from "./json-schema-validator.js";

/**
 * A schema of the Standard Schema spec (https://standardschema.dev): zod 3.24+, zod 4, valibot,
 * arktype and others validate through `~standard.validate`. Typed here as the spec says to, with
 * no dependency on any of them.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** The value a Standard Schema gives after validation (what a tool's `run` receives). */
export type StandardOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];

/** A JSON Schema (draft 2020-12) object. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema agents see for a tool's input: the one given, or made from a zod 4 schema (any
 * copy of zod 4, or zod 3.25's `zod/v4`). Any other schema needs `inputParameters` beside it; a
 * zod 3 schema is named as such, since it is the likeliest mistake. Throws a TypeError that says
 * what to do.
 */
export function inputParametersOf(tool: string, input: unknown, given: JsonSchema | undefined): JsonSchema {
  if (given !== undefined) return objectSchema(tool, given);
  if (isZod4(input)) {
    return objectSchema(tool, z.toJSONSchema(input, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as JsonSchema);
  }
  if (input !== null && typeof input === "object" && "_def" in input) {
    throw new TypeError(
      `Tool "${tool}": its input is a zod 3 schema, which tools-proxy cannot turn into the JSON Schema agents see. ` +
        'Use zod 4 (or zod 3.25+ with `import { z } from "zod/v4"`), or give `inputParameters` (a JSON Schema) beside it.',
    );
  }
  throw new TypeError(`Tool "${tool}": give \`inputParameters\` (a JSON Schema) for its input: only zod 4 schemas are converted to one.`);
}

/**
 * The schema that validates a tool's arguments: `input` when it is a Standard Schema, else one made
 * from the JSON Schema by `jsonSchemaValidator` (patterns matched in linear time, reference cycles
 * refused). Throws a TypeError when `input` is something else, or names the JSON pointer of what
 * the JSON Schema cannot have.
 */
export function argumentsSchema(tool: string, input: unknown, inputParameters: JsonSchema): StandardSchemaV1 {
  if (input === undefined) {
    try {
      return jsonSchemaValidator(inputParameters);
    } catch (error) {
      // The validator's own refusals start with the JSON pointer of the keyword; zod's are left as they are.
      if (!(error instanceof TypeError) || !error.message.startsWith("/")) throw error;
      throw new TypeError(`Tool "${tool}": inputParameters${error.message}.`, { cause: error });
    }
  }
  if (input !== null && typeof input === "object" && "~standard" in input) return input as StandardSchemaV1;
  throw new TypeError(
    `Tool "${tool}": \`input\` must be a schema (zod, valibot, arktype or any Standard Schema), or be left out beside \`inputParameters\`.`,
  );
}

/**
 * A Standard Schema validating by a JSON Schema, whose zod validator is made on its first use and
 * kept. A toolkit's load then costs memory for the tools that are called, not for every tool: a
 * validator made up front for each of Microsoft Graph beta's 21,807 tools needed more than 4 GB.
 * `prepare` may give the copy of the schema zod reads (see `validationCopy`). A schema zod cannot
 * read is found on that first use: every call then answers one issue that says so, naming the
 * toolkit author as the one to fix it, never a 500. Patterns are matched by RE2 and reference
 * cycles refused (`zodValidatorOf`); a pattern RE2 cannot express and a cycle are refused at once,
 * with a TypeError whose message starts with the keyword's JSON pointer.
 */
export function jsonSchemaValidator(schema: JsonSchema, prepare: (schema: JsonSchema) => unknown = (s) => s): StandardSchemaV1 {
  assertCheckable(schema);
  let validator: StandardSchemaV1 | undefined;
  let failure: string | undefined;
  return {
    "~standard": {
      version: 1,
      vendor: "tools-proxy",
      validate(value) {
        if (validator === undefined && failure === undefined) {
          try {
            validator = zodValidatorOf(prepare(schema) as JsonSchema);
          } catch (error) {
            failure = (error as Error).message.replace(/\.$/, "");
          }
        }
        if (validator) return validator["~standard"].validate(value);
        return {
          issues: [{ message: `the tool's inputParameters cannot be checked (${failure}); the toolkit's author must fix that schema` }],
        };
      },
    },
  };
}

function isZod4(input: unknown): input is z.ZodType {
  return (
    input !== null &&
    typeof input === "object" &&
    "_zod" in input &&
    (input as { _zod: { version?: { major?: number } } })._zod.version?.major === 4
  );
}

function objectSchema(tool: string, schema: JsonSchema): JsonSchema {
  if (schema.type !== "object") throw new TypeError(`Tool "${tool}": its input must be an object schema, e.g. z.object({ ... }).`);
  return schema;
}

/**
 * Validates `value` with a Standard Schema. Resolves to the value it gives, or to the issues as
 * sentences naming each field (`arguments.owner: Invalid input: expected string`).
 */
export async function validateWith(
  schema: StandardSchemaV1,
  value: unknown,
  where: string,
): Promise<{ value: unknown } | { error: string }> {
  const result = await schema["~standard"].validate(value);
  if (!result.issues) return { value: result.value };
  const parts = result.issues.slice(0, 10).map((issue) => {
    const path = (issue.path ?? []).map((step) => String(typeof step === "object" && step !== null && "key" in step ? step.key : step));
    return `${path.length ? `${where}.${path.join(".")}` : where}: ${issue.message}`;
  });
  const more = result.issues.length > 10 ? ` (and ${result.issues.length - 10} more)` : "";
  return { error: `Invalid ${where}. ${parts.join("; ")}${more}.` };
}
