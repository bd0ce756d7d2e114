/**
 * The PostgreSQL store's schema, as an ordered list of migrations: the records and the
 * command log, each record's owner, and the commit as one statement (golem_commit, then
 * golem_append, which orders commands per stream).
 */
import type { PostgresMigration } from './postgres-common.js';

/**
 * The writes of a commit (\`v_writes\`, a JSON array) applied to the records, in PL/pgSQL, as golem_commit and
 * golem_append do: each key once, as two set-based statements; a key written more than once, one write at a time in
 * order. A put that would give a record to another owner raises GL002 (DETAIL {collection, key}).
 */
function applyWrites(s: string): string {
  return `        -- No key written twice and every op known: the puts and the deletes commute, one statement each.
        SELECT count(*) = count(DISTINCT (e.w ->> 'collection', e.w ->> 'key')) AND coalesce(bool_and(e.w ->> 'op' IN ('put', 'delete')), true),
               count(*) FILTER (WHERE e.w ->> 'op' = 'put')
          INTO v_set_based, v_puts
          FROM jsonb_array_elements(v_writes) AS e(w);
        IF v_set_based THEN
          DELETE FROM ${s}.records AS r USING jsonb_array_elements(v_writes) AS e(w)
            WHERE e.w ->> 'op' = 'delete' AND r.collection = e.w ->> 'collection' AND r.key = e.w ->> 'key';
          -- In the order given, so that new records' ids (first-written order) follow it.
          INSERT INTO ${s}.records (collection, key, value, owner)
            SELECT e.w ->> 'collection', e.w ->> 'key', e.w ->> 'json', e.w ->> 'owner'
              FROM jsonb_array_elements(v_writes) WITH ORDINALITY AS e(w, n) WHERE e.w ->> 'op' = 'put' ORDER BY e.n
            ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value WHERE records.owner IS NOT DISTINCT FROM excluded.owner;
          GET DIAGNOSTICS v_stored = ROW_COUNT;
          IF v_stored < v_puts THEN
            -- A put was refused: its record is held by another owner.
            SELECT e.w ->> 'collection' AS collection, e.w ->> 'key' AS key INTO v_write
              FROM jsonb_array_elements(v_writes) WITH ORDINALITY AS e(w, n)
              JOIN ${s}.records AS r ON r.collection = e.w ->> 'collection' AND r.key = e.w ->> 'key'
              WHERE e.w ->> 'op' = 'put' AND r.owner IS DISTINCT FROM e.w ->> 'owner'
              ORDER BY e.n LIMIT 1;
            RAISE EXCEPTION 'the % "%" belongs to another owner', v_write.collection, v_write.key
              USING ERRCODE = 'GL002', DETAIL = json_build_object('collection', v_write.collection, 'key', v_write.key)::text;
          END IF;
        ELSE
          -- A key written more than once: one write at a time, in order.
          FOR v_write IN
            SELECT e.w ->> 'op' AS op, e.w ->> 'collection' AS collection, e.w ->> 'key' AS key, e.w ->> 'json' AS json, e.w ->> 'owner' AS owner
              FROM jsonb_array_elements(v_writes) WITH ORDINALITY AS e(w, n) ORDER BY e.n
          LOOP
            IF v_write.op = 'put' THEN
              INSERT INTO ${s}.records (collection, key, value, owner) VALUES (v_write.collection, v_write.key, v_write.json, v_write.owner)
                ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value WHERE records.owner IS NOT DISTINCT FROM excluded.owner;
              IF NOT FOUND THEN
                RAISE EXCEPTION 'the % "%" belongs to another owner', v_write.collection, v_write.key
                  USING ERRCODE = 'GL002', DETAIL = json_build_object('collection', v_write.collection, 'key', v_write.key)::text;
              END IF;
            ELSIF v_write.op = 'delete' THEN
              DELETE FROM ${s}.records WHERE collection = v_write.collection AND key = v_write.key;
            ELSE
              RAISE EXCEPTION 'unknown write op %', coalesce(v_write.op, 'null');
            END IF;
          END LOOP;
        END IF;`;
}

/**
 * golem_commit (migration 2): a commit at exactly p_seq in one statement. Migration 4 makes it
 * count as a write to the workspace-wide stream too (`beforeNotify`), so a process that still
 * runs a version without streams cannot pass unseen by those that have them.
 */
function golemCommit(s: string, create: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION', beforeNotify: string): string {
  return `      ${create} ${s}.golem_commit(
        p_seq BIGINT, p_id TEXT, p_type TEXT, p_payload TEXT, p_actor TEXT, p_timestamp TEXT, p_writes TEXT, p_lock TEXT, p_channel TEXT
      ) RETURNS VOID LANGUAGE plpgsql AS $golem_commit$
      DECLARE
        v_last BIGINT;
        v_writes JSONB := p_writes::jsonb;
        v_set_based BOOLEAN;
        v_puts BIGINT;
        v_stored BIGINT;
        v_write RECORD;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext(p_lock));
        SELECT coalesce(max(seq), 0) INTO v_last FROM ${s}.command_log;
        IF p_seq <> v_last + 1 THEN
          RAISE EXCEPTION 'the command log is at seq %, so the next command must be %, not %', v_last, v_last + 1, p_seq
            USING ERRCODE = 'GL001', DETAIL = v_last::text;
        END IF;
        INSERT INTO ${s}.command_log (seq, id, type, payload, actor, timestamp, writes)
          VALUES (p_seq, p_id, p_type, p_payload, p_actor, p_timestamp, p_writes);
        IF jsonb_typeof(v_writes) <> 'array' THEN
          RAISE EXCEPTION 'the writes are not a JSON array';
        END IF;

${applyWrites(s)}
${beforeNotify}        PERFORM pg_notify(p_channel, p_seq::text);
      END
      $golem_commit$;
`;
}

/** The PostgreSQL schema, as an ordered list of migrations (never edit one that has shipped: add the next). */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: "records and the command log, with each command's writes",
    sql: (s) => `
      CREATE TABLE ${s}.records (
        id         BIGSERIAL PRIMARY KEY,
        collection TEXT NOT NULL,
        key        TEXT NOT NULL,
        value      TEXT NOT NULL,
        UNIQUE (collection, key)
      );
      CREATE TABLE ${s}.command_log (
        seq       BIGINT PRIMARY KEY,
        id        TEXT NOT NULL UNIQUE,
        type      TEXT NOT NULL,
        payload   TEXT NOT NULL,
        actor     TEXT,
        timestamp TEXT NOT NULL,
        writes    TEXT NOT NULL
      );
      CREATE INDEX command_log_type ON ${s}.command_log (type);
    `,
  },
  {
    version: 2,
    description: "each record's owner (the session it belongs to), and the commit as one call (golem_commit)",
    sql: (s) => `
      ALTER TABLE ${s}.records ADD COLUMN owner TEXT;
      -- What earlier versions wrote: a turn belongs to its session, everything else to the workspace.
      UPDATE ${s}.records SET owner = value::jsonb ->> 'sessionId' WHERE collection = 'turn';
      -- A session's records (owner = ANY), and the workspace-wide ones in first-written order (a small index of its own).
      CREATE INDEX records_owner ON ${s}.records (owner) WHERE owner IS NOT NULL;
      CREATE INDEX records_shared ON ${s}.records (id) WHERE owner IS NULL;

      -- A whole commit in one statement, so in one round trip and one implicit transaction: takes the commit lock,
      -- checks the seq (GL001, DETAIL the last seq), appends the log entry (a taken id: 23505 on command_log_id_key),
      -- applies the writes in order, refusing a put that would give a record to another owner (GL002, DETAIL
      -- {collection, key} as JSON), and notifies the channel with the seq (delivered if and only if it commits).
${golemCommit(s, 'CREATE FUNCTION', '')}    `,
  },
  {
    version: 3,
    // Nothing to change in the tables: the version tells an older Golem, which cannot read such records, to refuse.
    description: 'session records count their turns (length), UI instances name the session that built them (builtBy)',
    sql: () => 'SELECT 1',
  },
  {
    version: 4,
    description: 'streams: commands on different sessions commit side by side (golem_append)',
    sql: (s) => `
      -- Each stream (a session, or '*' for the workspace-wide records) with the seq of the last command that wrote it.
      CREATE TABLE ${s}.streams (stream TEXT PRIMARY KEY, seq BIGINT NOT NULL);

      -- golem_commit (a process of the version before, still running) counts as a write to every stream that is read.
${golemCommit(s, 'CREATE OR REPLACE FUNCTION', `        INSERT INTO ${s}.streams (stream, seq) VALUES ('*', p_seq) ON CONFLICT (stream) DO UPDATE SET seq = excluded.seq;\n`)}

      -- A record's JSON text with the number after its last "seq": set to p_seq (unchanged if there is none): what
      -- stampSeq does in the manager. Found from the end (the text reversed), so a large record costs one pass.
      CREATE FUNCTION ${s}.golem_stamp(p_json TEXT, p_seq BIGINT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $golem_stamp$
      DECLARE
        v_from INTEGER := strpos(reverse(p_json), ':"qes"');
        v_digits TEXT;
      BEGIN
        IF v_from = 0 THEN
          RETURN p_json;
        END IF;
        v_from := length(p_json) - v_from + 2;
        v_digits := substring(substr(p_json, v_from, 25) FROM '^[0-9]+');
        IF v_digits IS NULL THEN
          RETURN p_json;
        END IF;
        RETURN left(p_json, v_from - 1) || p_seq::text || substr(p_json, v_from + length(v_digits));
      END
      $golem_stamp$;

      -- A commit at the seq after the log's last, in one statement, under the commit lock for its few microseconds only.
      -- Refused while another process holds or awaits a lock it yields to (GL004, below); with p_whole, if any
      -- command came after p_since (GL001, DETAIL the last seq); if a stream in p_read was written after p_since (GL003,
      -- DETAIL {stream, version, seen}). The writes marked "stamp" get the seq (their last "seq" key) when it is not
      -- p_seq; then the log entry, the writes (as golem_commit), each stream of p_write at the seq, the notification.
      -- Returns the seq (writes NULL), then the commands between p_since and it (at most 1,000), so the caller is up to
      -- date without another round trip.
      CREATE FUNCTION ${s}.golem_append(
        p_seq BIGINT, p_id TEXT, p_type TEXT, p_payload TEXT, p_actor TEXT, p_timestamp TEXT, p_writes TEXT,
        p_since BIGINT, p_read TEXT[], p_write TEXT[], p_whole BOOLEAN, p_yield_workspace TEXT, p_yield_streams TEXT[], p_stream_space TEXT, p_lock TEXT, p_channel TEXT
      ) RETURNS TABLE (seq BIGINT, writes TEXT) LANGUAGE plpgsql AS $golem_append$
      DECLARE
        v_last BIGINT;
        v_seq BIGINT;
        v_writes JSONB := p_writes::jsonb;
        v_moved RECORD;
        v_set_based BOOLEAN;
        v_puts BIGINT;
        v_stored BIGINT;
        v_write RECORD;
      BEGIN
        -- A command under no lock, or its streams' only, yields to a process that holds or awaits the workspace's lock,
        -- or a lock on a stream it reads (GL004, DETAIL which): such a one was overtaken before, and is not overtaken for
        -- ever (a shared try-lock fails while an exclusive request waits). The shared locks last for this statement.
        IF p_yield_workspace IS NOT NULL AND NOT pg_try_advisory_xact_lock_shared(hashtext(p_yield_workspace)) THEN
          RAISE EXCEPTION 'the workspace lock is held or awaited' USING ERRCODE = 'GL004', DETAIL = 'workspace';
        END IF;
        IF EXISTS (SELECT 1 FROM unnest(p_yield_streams) AS k(stream) WHERE NOT pg_try_advisory_xact_lock_shared(hashtext(p_stream_space), hashtext(k.stream))) THEN
          RAISE EXCEPTION 'a stream lock is held or awaited' USING ERRCODE = 'GL004', DETAIL = 'streams';
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext(p_lock));
        SELECT coalesce(max(l.seq), 0) INTO v_last FROM ${s}.command_log AS l;
        IF p_whole AND v_last <> p_since THEN
          RAISE EXCEPTION 'the command log is at seq %, not %', v_last, p_since USING ERRCODE = 'GL001', DETAIL = v_last::text;
        END IF;
        SELECT t.stream, t.seq AS version INTO v_moved
          FROM ${s}.streams AS t WHERE t.stream = ANY(p_read) AND t.seq > p_since LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'the stream % was written at seq %, after %', v_moved.stream, v_moved.version, p_since
            USING ERRCODE = 'GL003', DETAIL = json_build_object('stream', v_moved.stream, 'version', v_moved.version, 'seen', p_since)::text;
        END IF;
        v_seq := v_last + 1;
        IF jsonb_typeof(v_writes) <> 'array' THEN
          RAISE EXCEPTION 'the writes are not a JSON array';
        END IF;
        IF v_seq <> p_seq THEN
          SELECT coalesce(jsonb_agg(CASE WHEN e.w ->> 'stamp' = 'true'
                   THEN jsonb_set(e.w, '{json}', to_jsonb(${s}.golem_stamp(e.w ->> 'json', v_seq)))
                   ELSE e.w END ORDER BY e.n), '[]'::jsonb)
            INTO v_writes FROM jsonb_array_elements(v_writes) WITH ORDINALITY AS e(w, n);
        END IF;
        INSERT INTO ${s}.command_log AS l (seq, id, type, payload, actor, timestamp, writes)
          VALUES (v_seq, p_id, p_type, p_payload, p_actor, p_timestamp, CASE WHEN v_seq = p_seq THEN p_writes ELSE v_writes::text END);
${applyWrites(s)}
        INSERT INTO ${s}.streams AS t (stream, seq) SELECT DISTINCT w.stream, v_seq FROM unnest(p_write) AS w(stream)
          ON CONFLICT (stream) DO UPDATE SET seq = excluded.seq;
        PERFORM pg_notify(p_channel, v_seq::text);
        seq := v_seq;
        writes := NULL;
        RETURN NEXT;
        RETURN QUERY SELECT l.seq, l.writes FROM ${s}.command_log AS l WHERE l.seq > p_since AND l.seq < v_seq ORDER BY l.seq LIMIT 1000;
      END
      $golem_append$;
    `,
  },
  {
    version: 5,
    // Nothing to change in the tables: the version tells an older Golem, which cannot read such records, to refuse.
    description: 'answers keep the calls a provider ran itself with their results (server_tool_result) and redacted thinking',
    sql: () => 'SELECT 1',
  },
  {
    version: 6,
    // Nothing to change in the tables: the version tells an older Golem, which cannot read such records, to refuse.
    description: "tasks and plans: task records, task:proposal blocks in turns, approvals of type 'plan'",
    sql: () => 'SELECT 1',
  },
];
