/**
 * What umpire's Playwright reporter records of a test run (`playwright-reporter.ts` writes it,
 * `import playwright` reads it): the config's target facts and, per test, its steps as Playwright's
 * public Reporter API gives them (category, title, params, location).
 */

export interface RecordedStep {
  category: string;
  title: string;
  /** Playwright's curated call arguments: `locator`, `url`, `value`, `expected`... */
  params: Record<string, unknown>;
  file?: string;
  line?: number;
  column?: number;
  steps: RecordedStep[];
}

export interface RecordedTest {
  title: string;
  /** Describe blocks and the test, without the project and file. */
  titlePath: string[];
  file: string;
  line: number;
  project: string;
  status: string;
  steps: RecordedStep[];
}

export interface RecordedWebServer {
  command: string;
  cwd?: string;
  url?: string;
  port?: number;
  env?: Record<string, string>;
}

export interface RecordedProject {
  name: string;
  baseURL?: string;
  testIdAttribute?: string;
}

export interface Recording {
  version: 1;
  configFile?: string;
  rootDir: string;
  webServer: RecordedWebServer | null;
  projects: RecordedProject[];
  tests: RecordedTest[];
}

/** The environment variable naming the file the reporter writes. */
export const RECORDING_FILE_ENV = "UMPIRE_IMPORT_RECORDING";
