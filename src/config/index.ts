/**
 * The config file (`umpire.config.yaml` / `.json`) and the option table its `defaults` feed.
 * See docs/config.md.
 */
export { findConfigFile, loadConfig, validateConfigText, type LoadedConfig } from "./loader.js";
export { configKey, configSchemaOf, defaultText, fromConfigValue, parseFlagValue, type OptionKind, type OptionSpec, type OptionValue } from "./option.js";
export { DEFAULT_DB, DEFAULT_MODE, DEFAULT_OUT, MODE_CHOICES, OPTIONS, PRICE_OPTIONS, configurableOptions } from "./options.js";
export { CONFIG_FILE_NAMES, CONFIG_SECTIONS, ConfigFileSchema, DefaultsSection, PricesSection, type ConfigFile } from "./schema.js";
export { findConfigBesideTasks, projectTargets, type ProjectTargets } from "./project.js";
