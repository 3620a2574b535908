/** skillgate's version, printed by `--version` and sent as `serverInfo.version`. */
export const VERSION = "0.1.0";
