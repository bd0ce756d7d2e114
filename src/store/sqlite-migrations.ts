/**
 * The SQLite schema, as an ordered list of migrations. Each runs once, in a
 * transaction, and `PRAGMA user_version` records the last one applied.
 * Never edit a migration that has shipped: add the next one.
 */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'records and the command log',
    sql: `
      CREATE TABLE records (
        collection TEXT NOT NULL,
        key        TEXT NOT NULL,
        value      TEXT NOT NULL,
        UNIQUE (collection, key)
      );
      CREATE TABLE command_log (
        seq       INTEGER PRIMARY KEY,
        id        TEXT NOT NULL UNIQUE,
        type      TEXT NOT NULL,
        payload   TEXT NOT NULL,
        actor     TEXT,
        timestamp TEXT NOT NULL
      );
      CREATE INDEX command_log_type ON command_log (type);
    `,
  },
  {
    version: 2,
    description: "each record's owner (the session it belongs to), indexed: a session loads with one query",
    sql: `
      ALTER TABLE records ADD COLUMN owner TEXT;
      UPDATE records SET owner = json_extract(value, '$.sessionId') WHERE collection = 'turn';
      CREATE INDEX records_owner ON records (owner);
    `,
  },
  {
    version: 3,
    // Nothing to change in the tables: the version tells an older Golem, which cannot read such records, to refuse.
    description: 'session records count their turns (length), UI instances name the session that built them (builtBy)',
    sql: '',
  },
  {
    version: 4,
    // Nothing to change in the tables: the version tells an older Golem, which cannot read such records, to refuse.
    description: 'answers keep the calls a provider ran itself with their results (server_tool_result) and redacted thinking',
    sql: '',
  },
  {
    version: 5,
    // Nothing to change in the tables: the version tells an older Golem, which cannot read such records, to refuse.
    description: "tasks and plans: task records, task:proposal blocks in turns, approvals of type 'plan'",
    sql: '',
  },
];
