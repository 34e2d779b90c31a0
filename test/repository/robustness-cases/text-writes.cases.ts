import type { Body, Case } from "./case.js";
import { spread, UNKNOWN_UUID } from "./junk.js";
import { E, JSON_TYPE, TEXT_TYPE, TYPES } from "./wire.js";

/**
 * Write routes: text/plain bodies (move, security tag, assignable)
 */

function textWriteJunk(): Case[] {
  const cases: Case[] = [];
  const add = (
    name: string,
    path: string,
    body: Body,
    expectStatus: number[],
    message?: RegExp,
    headers: Record<string, string> = TEXT_TYPE,
  ) => cases.push({ name, method: "PUT", path, headers, body, expect: expectStatus, message });
  const LONG = "x".repeat(100_000);
  const notRef = /not a folder reference|body is empty/;
  const move = `${E}/structural-objects/{so}/parent-ref`;
  for (const [name, body, status, message] of [
    ["empty", "", [400], /body is empty/],
    ["blank", " \n\t ", [400], /body is empty/],
    ["not a UUID", "not-a-folder", [400], notRef],
    ["ref with junk after it", "{otherSo}x", [400], notRef],
    ["two refs", "{otherSo}\n{otherSo}", [400], notRef],
    ["ref with a NUL", "{otherSo}\u0000", [400], notRef],
    ["@ROOT@", "@ROOT@", [400], notRef],
    ["@root", "@root", [400], notRef],
    ["root", "root", [400], notRef],
    ["@root@@root@", "@root@@root@", [400], notRef],
    ["@root@ and a ref", "@root@ {otherSo}", [400], notRef],
    ["JSON", '{"destination":"{otherSo}"}', [400], notRef],
    ["XML", "<Parent>{otherSo}</Parent>", [400], notRef],
    ["a form", "parentRef={otherSo}", [400], notRef],
    ["100,000 characters", LONG, [400], notRef],
    ["not UTF-8", { latin1: "\xff\xfe{otherSo}" }, [400], notRef],
    ["unknown folder", UNKNOWN_UUID, [404], /not found/],
    ["deleted folder", "{binned}", [404], /not found/],
    ["itself", "{so}", [409], /into itself/],
    ["its own subfolder", "{pendingFolder}", [409], /own subtree/],
    ["an asset", "{io}", [409], /folders and assets can only be moved into a folder/],
    ["a content object", "{co}", [409], /only be moved into a folder/],
    ["a fragment ref", "{soMref}", [404], /not found/],
  ] as [string, Body, number[], RegExp][]) {
    add(`move folder: ${name}`, move, body, status, message);
  }
  for (const [name, body, status, message] of [
    ["@root@", "@root@", [409], /Only folders can be at the top level/],
    [" @root@ ", "  @root@\n", [409], /Only folders/],
    ["itself", "{io}", [409], /Asset .* cannot be moved into itself/],
    ["a content object", "{co}", [409], /only be moved into a folder/],
    ["empty", "", [400], /body is empty/],
    ["not a UUID", "{otherSo}{otherSo}", [400], notRef],
  ] as [string, Body, number[], RegExp][]) {
    add(`move asset: ${name}`, `${E}/information-objects/{io}/parent-ref`, body, status, message);
  }
  add(
    "move content object",
    `${E}/content-objects/{co}/parent-ref`,
    "{otherSo}",
    [409],
    /Content objects stay with their asset/,
  );
  add(
    "move content object to @root@",
    `${E}/content-objects/{co}/parent-ref`,
    "@root@",
    [409],
    /stay with their asset/,
  );
  add("move folder sent as JSON", move, '"{otherSo}"', [400], notRef, JSON_TYPE);
  add("move through v6.0", `${E}/v6.0/structural-objects/{so}/parent-ref`, "@root", [400], notRef);

  const tag = (ph: string, path: string) => `${E}/${path}/{${ph}}/security-descriptor`;
  const noTag = /does not exist|body is empty/;
  for (const [i, [ph, path]] of TYPES.entries()) {
    const tags: [string, Body, number[], RegExp][] = [
      ["empty", "", [400], /body is empty/],
      ["unknown tag", "secret", [400], /does not exist/],
      ["tag in the wrong case", "CLOSED", [400], /does not exist/],
      ["tag with a NUL", "closed\u0000", [400], noTag],
      ["two tags", "closed\nopen", [400], noTag],
      ["tag in quotes", '"closed"', [400], noTag],
      ["XML", "<SecurityTag>closed</SecurityTag>", [400], noTag],
      ["100,000 characters", LONG, [400], noTag],
      ["not UTF-8", { latin1: "clos\xe9d" }, [400], noTag],
    ];
    for (const [name, body, status, message] of spread(tags, i))
      add(`${ph} security tag: ${name}`, tag(ph, path), body, status, message);
    for (const q of ["maybe", "1", "%00", "true,false", "yes"]) {
      add(
        `${ph} security tag: includeDescendants=${q}`,
        `${tag(ph, path)}?includeDescendants=${q}`,
        "closed",
        [400],
        /includeDescendants must be true or false/,
      );
    }
  }
  add(
    "security tag through v6.0",
    `${E}/v6.0/structural-objects/{so}/security-descriptor`,
    "nope",
    [400],
    /does not exist/,
  );

  const assignable = `${E}/retention-policies/{policy}/assignable`;
  for (const [name, body] of [
    ["empty", ""],
    ["maybe", "maybe"],
    ["yes", "yes"],
    ["1", "1"],
    ["both", "True False"],
    ["Tru", "Tru"],
    ["XML", "<Assignable>True</Assignable>"],
    ["JSON", "true,"],
    ["100,000 characters", LONG],
    ["not UTF-8", { latin1: "Tru\xe9" }],
  ] as [string, Body][]) {
    add(`assignable: ${name}`, assignable, body, [400], /must be True or False/);
  }
  return cases;
}

export const CASES: Case[] = textWriteJunk();
