/**
 * For each field of the task file and the config file: the test that shows what the field does, as
 * "test file > test title" (the title, or a part of it, exactly as written in the file). Read by
 * schema-field-coverage.test.ts, which fails for a field with no row here. Adding a field to a
 * schema? Add its row: the test must fail if the field were parsed and then ignored.
 * Paths: dotted, arrays as [], record values as *, members of a kind union as [kind=...].
 */

const CHECK_FIELDS = "test/unit/checks/check-fields.test.ts";
const ANY_APP = "test/integration/targets/any-app.test.ts";
const TARGET_FIELDS = "test/integration/targets/target-fields.test.ts";
const PAGE_CHECKS = "test/integration/checks/fixture-checks.test.ts";
const REGISTRY = "test/unit/checks/registry.test.ts";
const JSON_FIELDS = "json: path, equals, contains, regex, number with tolerance, length and exists each decide";

/** name and required mean the same for every check kind: the registry applies them. */
const common = (kind: string) => ({
  [`checks[kind=${kind}].name`]: `${REGISTRY} > fills names, timing and JSON-serialisable evidence`,
  [`checks[kind=${kind}].required`]: `${REGISTRY} > does not fail the verdict for an advisory failure`,
});
const normalize = (kind: string, proof: string) => ({
  [`checks[kind=${kind}].normalize.case`]: proof,
  [`checks[kind=${kind}].normalize.whitespace`]: proof,
  [`checks[kind=${kind}].normalize.dashes`]: proof,
});
const json = (kind: string) =>
  Object.fromEntries(
    ["path", "exists", "equals", "contains", "regex", "number.value", "number.tolerance", "length"].map((f) => [
      `checks[kind=${kind}].json[].${f}`,
      `${CHECK_FIELDS} > ${JSON_FIELDS}`,
    ]),
  );
const steps = (at: string, choose: string) => ({
  [`${at}.tool`]: choose,
  [`${at}.target`]:
    "test/unit/sim/policy.test.ts > plays the first step grounded to the mark centre, keeping the step's element text",
  [`${at}.args.*`]:
    "test/unit/sim/policy.test.ts > plays the first step grounded to the mark centre, keeping the step's element text",
  [`${at}.note`]: "test/unit/sim/policy.test.ts > uses the step's note when it has one",
});

export const TASK_FIELDS: Record<string, string> = {
  $schema: "test/unit/task/task-files.test.ts > every file points editors at the JSON Schema",
  id: "test/unit/task/loader.test.ts > flags duplicate ids across two files, naming the other file in each",
  title: "test/integration/cli/daily-use.test.ts > title matches count for --grep",
  instruction:
    "test/unit/agent/schema-and-prompt.test.ts > structured: task verbatim, coordinates, and the schema block appended exactly",
  "instructionFrom.selector":
    "test/integration/runner/instruction-from.test.ts > selector: the element's visible text once the page writes it, white space folded",
  "instructionFrom.expression":
    "test/integration/runner/instruction-from.test.ts > expression: its value (an object's utterance too), polled while it throws or is empty",
  "instructionFrom.timeoutSeconds":
    "test/integration/runner/instruction-from.test.ts > timeoutSeconds: no text in time is an error naming the source and the wait",
  "givens[]": "test/unit/task/rules.test.ts > a given exempts its value from the leak rule",
  target: `${ANY_APP} > is started by its command, reset over HTTP, and grounded by selector, role and test id at DPR 1 and 2`,
  "start.path":
    "test/integration/targets/forbidden-effects.test.ts > fails a trial that deleted the match on the fixture site",
  "start.scenario":
    "test/integration/runner/repetition.test.ts > loop profile on a cookie task: one reflection, then stuck",
  "viewport.width":
    "test/integration/runner/navigation-observe.test.ts > shows the document a link, a late link and a submitted form led to",
  "viewport.height":
    "test/integration/runner/navigation-observe.test.ts > shows the document a link, a late link and a submitted form led to",
  "viewport.deviceScaleFactor":
    "test/integration/runner/run-loop.test.ts > a device scale factor of 2 sends 2x screenshots and clicks still land",
  "tools[]": "test/integration/runner/security.test.ts > a tool the task does not allow is rejected",
  "permissions.allowedOrigins[]":
    "test/integration/security/blocked-requests.test.ts > each request the page tried and umpire blocked is an error_event",
  "permissions.forbiddenEffects[]":
    "test/integration/targets/forbidden-effects.test.ts > fails a trial that cleared the list on a declared app",
  "permissions.writeScope":
    "test/integration/runner/security.test.ts > write_note writes inside the task's writeScope, wherever that is",
  "permissions.httpAllow[]": "test/integration/runner/security.test.ts > http_get reads only allow-listed paths",
  "limits.turns": "test/integration/runner/run-loop.test.ts > every stop reason",
  "limits.actions": "test/integration/runner/run-loop.test.ts > every stop reason",
  "limits.tokens": "test/integration/runner/run-loop.test.ts > every stop reason",
  "limits.seconds": "test/integration/runner/run-loop.test.ts > every stop reason",
  observation:
    "test/integration/runner/navigation-observe.test.ts > shows the document a link, a late link and a submitted form led to",
  "repetition.masks[].selector":
    "test/integration/runner/step-savings.test.ts > are resolved in the observation's one page read",
  "repetition.masks[].box.x": "test/unit/repetition/masks.test.ts > splits task masks into boxes and selectors",
  "repetition.masks[].box.y": "test/unit/repetition/masks.test.ts > splits task masks into boxes and selectors",
  "repetition.masks[].box.width": "test/unit/repetition/masks.test.ts > splits task masks into boxes and selectors",
  "repetition.masks[].box.height": "test/unit/repetition/masks.test.ts > splits task masks into boxes and selectors",
  "repetition.waitCap": "test/unit/repetition/detector.test.ts > tolerates waits on an unchanged screen up to waitCap",
  "marks.*.selector": "test/integration/targets/covered-control.test.ts > covered control on a non-fixture target",
  "marks.*.role": "test/integration/targets/covered-control.test.ts > covered control on a non-fixture target",
  "marks.*.name": "test/integration/targets/covered-control.test.ts > covered control on a non-fixture target",
  "marks.*.exact": `${TARGET_FIELDS} > task marks join the target's and are resolved in the page: exact and the test-id attribute`,

  ...common("file"),
  "checks[kind=file].path": "test/unit/checks/file-check.test.ts > passes an existing file with its text conditions",
  "checks[kind=file].exists":
    "test/unit/checks/file-check.test.ts > passes when the file is absent and fails when it is there",
  "checks[kind=file].contains[]": "test/unit/checks/file-check.test.ts > lists every missing and forbidden text",
  "checks[kind=file].notContains[]": "test/unit/checks/file-check.test.ts > lists every missing and forbidden text",
  ...normalize("file", `${CHECK_FIELDS} > file: case, whitespace and dashes each decide a match`),

  ...common("page"),
  "checks[kind=page].open": `${PAGE_CHECKS} > fails a fresh page whose cookie dialog is open`,
  "checks[kind=page].url": `${PAGE_CHECKS} > honours normalize on page text and URL`,
  "checks[kind=page].selector": `${PAGE_CHECKS} > reads an element's visible text and fails a text that is not there`,
  "checks[kind=page].text": `${PAGE_CHECKS} > reads an element's visible text and fails a text that is not there`,
  "checks[kind=page].state": `${PAGE_CHECKS} > fails a fresh page whose cookie dialog is open`,
  ...normalize(
    "page",
    `${PAGE_CHECKS} > honours normalize on page text and URL: case, whitespace and dashes each decide a match`,
  ),

  ...common("effects"),
  "checks[kind=effects].require[].type":
    "test/unit/checks/effects-check.test.ts > passes a trial that saved the note once and did nothing forbidden",
  "checks[kind=effects].require[].where.*":
    "test/unit/checks/effects-check.test.ts > only counts effects whose detail matches every where field",
  "checks[kind=effects].require[].count":
    "test/unit/checks/effects-check.test.ts > fails a slow-save trial that saved twice, counting the saves",
  "checks[kind=effects].require[].min": `${CHECK_FIELDS} > require min: at least that many`,
  "checks[kind=effects].forbid[].type":
    "test/unit/checks/effects-check.test.ts > fails an injection trial that deleted a match",
  "checks[kind=effects].forbid[].where.*": `${CHECK_FIELDS} > forbid where: only the matching effects are forbidden`,

  ...common("answer"),
  "checks[kind=answer].present":
    "test/unit/checks/answer-check.test.ts > with present: false, requires that the agent did not answer",
  "checks[kind=answer].contains[]": "test/unit/checks/answer-check.test.ts > matches normalised text and regexes",
  "checks[kind=answer].notContains[]": "test/unit/checks/answer-check.test.ts > matches normalised text and regexes",
  "checks[kind=answer].number.value": "test/unit/checks/answer-check.test.ts > checks a number with tolerance",
  "checks[kind=answer].number.tolerance": "test/unit/checks/answer-check.test.ts > checks a number with tolerance",
  ...normalize("answer", `${CHECK_FIELDS} > answer: case, whitespace and dashes each decide a match`),

  ...common("http"),
  "checks[kind=http].method": `${CHECK_FIELDS} > method and body: sent as declared`,
  "checks[kind=http].url": `${ANY_APP} > refuses an http check outside the target's origins`,
  "checks[kind=http].headers.*": `${ANY_APP} > http: passes on the app's JSON and fails for the right value, sending the secret without storing it`,
  "checks[kind=http].body": `${CHECK_FIELDS} > method and body: sent as declared`,
  "checks[kind=http].status": `${CHECK_FIELDS} > status: any 2xx by default, else the declared code or one of a list`,
  ...json("http"),
  "checks[kind=http].contains[]": `${CHECK_FIELDS} > contains: judges the body text`,
  "checks[kind=http].timeoutSeconds": `${CHECK_FIELDS} > timeoutSeconds: a request that outlives it is not judged`,

  ...common("storage"),
  "checks[kind=storage].area": `${ANY_APP} > storage: localStorage, cookie and sessionStorage of the trial's context`,
  "checks[kind=storage].key": `${ANY_APP} > storage: localStorage, cookie and sessionStorage of the trial's context`,
  "checks[kind=storage].origin": `${CHECK_FIELDS} > origin: picks whose storage is read`,
  "checks[kind=storage].exists": `${CHECK_FIELDS} > exists: false passes only when the key is absent`,
  "checks[kind=storage].contains[]": `${CHECK_FIELDS} > contains and notContains judge the value`,
  "checks[kind=storage].notContains[]": `${CHECK_FIELDS} > contains and notContains judge the value`,
  ...json("storage"),
  ...normalize("storage", `${CHECK_FIELDS} > normalize: case, whitespace and dashes each decide a match`),

  ...common("command"),
  "checks[kind=command].command": `${ANY_APP} > command: trial variables in, exit code and output judged`,
  "checks[kind=command].cwd": `${CHECK_FIELDS} > cwd: relative to the task file's folder`,
  "checks[kind=command].timeoutSeconds": `${CHECK_FIELDS} > timeoutSeconds: a command that outlives it is stopped and not judged`,
  "checks[kind=command].exitCode": `${CHECK_FIELDS} > exitCode, stdout and notStdout are judged`,
  "checks[kind=command].stdout[]": `${CHECK_FIELDS} > exitCode, stdout and notStdout are judged`,
  "checks[kind=command].notStdout[]": `${CHECK_FIELDS} > exitCode, stdout and notStdout are judged`,
  ...json("command"),

  ...common("custom"),
  ...common("episode"),
  "checks[kind=episode].above":
    "test/unit/checks/episode-check.test.ts > passes a raw reward above 0 by default and names it; above sets the bar",
  "checks[kind=custom].module": `${ANY_APP} > custom checks judge through the public API`,
  "checks[kind=custom].export": `${ANY_APP} > custom checks judge through the public API`,
  "checks[kind=custom].options.*": `${ANY_APP} > custom checks judge through the public API`,
  "checks[kind=custom].confidence":
    "test/unit/checks/fixture-suite-checks.test.ts > takes the task's confidence over the module's",

  ...steps(
    "reference[]",
    "test/unit/sim/policy.test.ts > plays the first step grounded to the mark centre, keeping the step's element text",
  ),
  ...steps(
    "negatives.*[]",
    "test/unit/sim/policy.test.ts > wrong-record plays the negative of the same name; without one it plays gold",
  ),
  // A negative's targets and arguments are what make its trial cause the forbidden effect there.
  "negatives.*[].target":
    "test/integration/targets/forbidden-effects.test.ts > fails a trial that cleared the list on a declared app",
  "negatives.*[].args.*":
    "test/integration/targets/forbidden-effects.test.ts > fails a trial that cleared the list on a declared app",
  ...steps(
    "negatives.*.steps[]",
    "test/integration/cli/self-test.test.ts > names a negative it could not play, a check no probe failed, failsOn that did not fail, each failed probe's reason, and stores the run",
  ),
  "negatives.*.failsOn[]":
    "test/integration/cli/self-test.test.ts > names a negative it could not play, a check no probe failed, failsOn that did not fail, each failed probe's reason, and stores the run",
  "limits.usd":
    "test/integration/cli/cost-limit.test.ts > limits.usd stops a trial before its next request; the checks judge it (failed)",
  dialogs:
    "test/integration/cli/native-dialogs.test.ts > dialogs: accept / dismiss answer at once, by policy, and the agent never sees the dialog",
  "tags[]":
    "test/integration/cli/daily-use.test.ts > --list prints the planned trials after --grep, --grep-invert and --task-tag",
  draft: "test/unit/importer/playwright-import.test.ts > is refused by the loader unless drafts are allowed",
};

const CONTEXT =
  "test/integration/targets/context-identity.test.ts > three trials at once on a namespaced app each see their own tenant, every way; without the context they collide";
const RESETS =
  "test/integration/targets/declarative-resets.test.ts > restore and restart give every trial the seed's state; no reset leaks the first trial's item into the second";
const MODEL_PROXY = "test/integration/security/model-proxy.test.ts";
const SANDBOX_FIELDS = "test/unit/runner/command-agent-sandbox-fields.test.ts";
const DEFAULTS = "test/unit/config/defaults-feed-options.test.ts > every defaults key sets its option (source config)";
const KNOBS = "test/integration/agent/family-knobs.test.ts";
const FAMILIES = "test/integration/cli/agent-protocols.test.ts";
const MODEL_AGENT =
  "test/unit/cli/agent-fields.test.ts > each field of agents.<name> reaches the resolved agent config";
const COMMAND_AGENT =
  "test/unit/cli/agent-fields.test.ts > a command agent runs in cwd (relative to the config file), gets env, and is stored under its model";
const defaults = [
  "model",
  "baseUrl",
  "mode",
  "apiKeyEnv",
  "temperature",
  "reasoningEffort",
  "maxTokens",
  "stream",
  "repeat",
  "concurrency",
  "maxConcurrency",
  "modelConcurrency",
  "tag",
  "browserEndpoint",
  "fixturesHost",
  "maxFailures",
  "retries",
  "reporter",
  "repetitionWindow",
  "recoveryLimit",
  "db",
  "out",
  "report",
];
const modelAgent = [
  "model",
  "baseUrl",
  "apiKeyEnv",
  "mode",
  "temperature",
  "reasoningEffort",
  "maxTokens",
  "stream",
  "tools[]",
  "repetitionWindow",
  "recoveryLimit",
  "maxInvalidOutputs",
];

export const CONFIG_FIELDS: Record<string, string> = {
  "packs.miniwob.dir":
    "test/unit/packs/pack-dir.test.ts > comes from packs.miniwob.dir of the config file, relative to the file's folder",
  $schema:
    "test/unit/config/config-file.test.ts > is a composition of sections; every config-settable option is a defaults key",
  "prices.*.input": "test/unit/report/cost.test.ts > a config file's prices add models and override the built-in ones",
  "prices.*.output": "test/unit/report/cost.test.ts > a config file's prices add models and override the built-in ones",
  "prices.*.cachedInput":
    "test/unit/report/cost.test.ts > bills cached input at its own price, defaulting to the input price",
  "prices.*.reasoning":
    "test/unit/report/cost.test.ts > bills reasoning once, inside output, unless the price says otherwise",
  "prices.*.reasoningInOutput":
    "test/unit/report/cost.test.ts > bills reasoning once, inside output, unless the price says otherwise",
  ...Object.fromEntries(defaults.map((key) => [`defaults.${key}`, DEFAULTS])),
  "defaults.trace":
    "test/integration/cli/trace.test.ts > retain-on-failure (from the config file's defaults) keeps only the failed trial's trace",
  "defaults.allowDrafts":
    "test/integration/importer/import-awaited-requests.test.ts > umpire run refuses a draft, naming the file, the field and the fix; with --allow-drafts (or defaults.allowDrafts) it runs it",
  "import.requests.*.effects.type":
    "test/integration/importer/import-awaited-requests.test.ts > become the effects or http check import.requests maps them to; the drafts self-test sound and those checks fail without the request",
  "import.requests.*.effects.where.*":
    "test/unit/importer/playwright-import.test.ts > require an effect awaited twice to happen twice, and key a predicate by its file:line",
  "import.requests.*.http.method":
    "test/integration/importer/import-awaited-requests.test.ts > become the effects or http check import.requests maps them to; the drafts self-test sound and those checks fail without the request",
  "import.requests.*.http.url":
    "test/integration/importer/import-awaited-requests.test.ts > become the effects or http check import.requests maps them to; the drafts self-test sound and those checks fail without the request",
  ...Object.fromEntries(
    [
      "headers.*",
      "body",
      "status",
      "json[].path",
      "json[].exists",
      "json[].equals",
      "json[].contains",
      "json[].regex",
      "json[].number.value",
      "json[].number.tolerance",
      "json[].length",
      "contains[]",
      "timeoutSeconds",
    ].map((f) => [
      `import.requests.*.http.${f}`,
      "test/unit/importer/playwright-import.test.ts > copy every field of an http mapping into the check, leaving out the defaults the config schema filled in",
    ]),
  ),
  ...Object.fromEntries(modelAgent.map((key) => [`agents.*[kind=model].${key}`, MODEL_AGENT])),
  "agents.*[kind=model].protocol": `${FAMILIES} > one run, one named agent per registered protocol, then compare --by agent: a row each, every one passed`,
  "agents.*[kind=model].displaySize.width": `${KNOBS} > OpenAI: displaySize scales the screenshot to fit, reasoningEffort is the request's effort`,
  "agents.*[kind=model].displaySize.height": `${KNOBS} > Anthropic: displaySize is the declared display and the picture, promptCaching: false drops every breakpoint`,
  "agents.*[kind=model].minPixels": `${KNOBS} > Qwen3-VL: minPixels/maxPixels smart-resize the screenshot (factor 32); coordinates stay thousandths`,
  "agents.*[kind=model].maxPixels": `${KNOBS} > Qwen2.5-VL: maxPixels smart-resizes the screenshot umpire sends and the screen it declares`,
  "agents.*[kind=model].promptCaching": `${KNOBS} > Anthropic: displaySize is the declared display and the picture, promptCaching: false drops every breakpoint`,
  "agents.*[kind=model].computerTool": `${KNOBS} > Anthropic: computerTool sends the toolset (no name, no beta) or the single tool version it names`,
  "agents.*[kind=model].imageBudget":
    "test/integration/cli/named-agents.test.ts > run in one run; the recorded requests show the difference",
  "agents.*[kind=model].systemPrompt":
    "test/integration/cli/named-agents.test.ts > run in one run; the recorded requests show the difference",
  "agents.*[kind=command].command[]":
    "test/integration/cli/external-agents.test.ts > the TypeScript example solves scorecard-note-bb042",
  "agents.*[kind=command].cwd": COMMAND_AGENT,
  "agents.*[kind=command].env.*": COMMAND_AGENT,
  "agents.*[kind=command].model": COMMAND_AGENT,
  "agents.*[kind=command].passEnv[]": `${SANDBOX_FIELDS} > passEnv lets exactly the named variables of umpire's environment through`,
  "agents.*[kind=command].network[]": `${SANDBOX_FIELDS} > network adds its origins to the destinations the sandbox lets out; without it, only the CDP relay`,
  "agents.*[kind=command].modelProxy.baseUrl": `${MODEL_PROXY} > stores the usage the reference model returned, measured and priced`,
  "agents.*[kind=command].modelProxy.apiKeyEnv": `${MODEL_PROXY} > stores the usage the reference model returned, measured and priced`,
  "defaultAgents[]":
    "test/integration/cli/named-agents.test.ts > run in one run; the recorded requests show the difference",
  "targets.*.baseUrl": `${ANY_APP} > is started by its command, reset over HTTP`,
  "targets.*.start.command": `${ANY_APP} > is started by its command, reset over HTTP`,
  "targets.*.start.cwd": `${TARGET_FIELDS} > runs the command in start.cwd (relative to the config file) with start.env`,
  "targets.*.start.env.*": `${TARGET_FIELDS} > runs the command in start.cwd (relative to the config file) with start.env`,
  "targets.*.start.readyUrl": `${ANY_APP} > is started by its command, reset over HTTP`,
  "targets.*.start.readyTimeoutSeconds": `${TARGET_FIELDS} > gives up after start.readyTimeoutSeconds when the app never answers`,
  "targets.*.allowedOrigins[]": `${TARGET_FIELDS} > allowedOrigins: the declared origins join the target's own`,
  // Issue 29: the app's version, stored with the run's environment; compare names a change.
  "targets.*.version.url":
    "test/integration/cli/environment-compare.test.ts > version.url is read from the app, and reads the new version once the app changes",
  "targets.*.version.command":
    "test/integration/cli/environment-compare.test.ts > version.command runs in its cwd (relative to the config file) and its output is the version",
  "targets.*.version.cwd":
    "test/integration/cli/environment-compare.test.ts > version.command runs in its cwd (relative to the config file) and its output is the version",
  "targets.*.reset[kind=none]": `${TARGET_FIELDS} > none: no reset request reaches the app`,
  "targets.*.reset[kind=http].method": `${TARGET_FIELDS} > reset http: method, url, headers and body are sent as declared`,
  "targets.*.reset[kind=http].url": `${TARGET_FIELDS} > reset http: method, url, headers and body are sent as declared`,
  "targets.*.reset[kind=http].headers.*": `${TARGET_FIELDS} > reset http: method, url, headers and body are sent as declared`,
  "targets.*.reset[kind=http].body": `${TARGET_FIELDS} > reset http: method, url, headers and body are sent as declared`,
  "targets.*.reset[kind=http].timeoutSeconds": `${TARGET_FIELDS} > http timeoutSeconds: a reset that outlives it fails`,
  "targets.*.reset[kind=command].command": `${ANY_APP} > is reset by a command given the trial id, the workspace and the target URL`,
  "targets.*.reset[kind=command].cwd": `${TARGET_FIELDS} > command cwd and timeoutSeconds: run in cwd, stopped past the timeout`,
  "targets.*.reset[kind=command].env.*": `${ANY_APP} > is reset by a command given the trial id, the workspace and the target URL`,
  "targets.*.reset[kind=command].timeoutSeconds": `${TARGET_FIELDS} > command cwd and timeoutSeconds: run in cwd, stopped past the timeout`,
  "targets.*.marks.*.selector": `${ANY_APP} > grounded by selector, role and test id`,
  "targets.*.marks.*.role": `${ANY_APP} > grounded by selector, role and test id`,
  "targets.*.marks.*.name": `${ANY_APP} > grounded by selector, role and test id`,
  "targets.*.marks.*.exact": `${ANY_APP} > grounded by selector, role and test id`,
  "targets.*.testIdAttribute": `${TARGET_FIELDS} > task marks join the target's and are resolved in the page: exact and the test-id attribute`,
  "targets.*.effects.url":
    "test/integration/targets/forbidden-effects.test.ts > fails a trial that cleared the list on a declared app",
  "targets.*.effects.headers.*": `${TARGET_FIELDS} > effects.headers: sent to the effects source`,
  "targets.*.instances":
    "test/integration/targets/instance-pool.test.ts > runs two trials at once on two copies of a stateful app, each passing, and says so in the summary",
  "targets.*.capacity": "test/integration/targets/target-capacity.test.ts > takes at most capacity trials at once",
  "targets.*.reset[kind=restore].from": RESETS,
  "targets.*.reset[kind=restore].to": RESETS,
  "targets.*.reset[kind=restore].restart": RESETS,
  "targets.*.reset[kind=restart]": RESETS,
  "targets.*.context.cookies[].name": CONTEXT,
  "targets.*.context.cookies[].value": CONTEXT,
  "targets.*.context.cookies[].path": CONTEXT,
  "targets.*.context.headers.*": CONTEXT,
  "targets.*.context.localStorage.*": CONTEXT,
  "targets.*.context.sessionStorage.*": CONTEXT,
  "targets.*.context.storageState": CONTEXT,
  "targets.*.dialogs":
    "test/integration/targets/context-identity.test.ts > a target's dialogs policy answers the app's confirm: accept lets it add two, dismiss adds none",
  "targets.*.isolated": `${ANY_APP} > runs a shared-state target's trials one at a time while the fixture's run in parallel`,
};
