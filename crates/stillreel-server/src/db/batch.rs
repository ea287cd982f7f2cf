//! Writes that belong together, written once for both backends.
//!
//! A [`Batch`] is a list of statements with `?` placeholders and the values to bind, in
//! order. On SQLite it goes to the connection's thread as one multi-statement query: one
//! round trip, which on SQLite's single writer is most of the cost of a small insert. On
//! PostgreSQL (which has no multi-statement query with parameters) each statement runs on its
//! own, its `?` renumbered `$1, $2, ...`. Modules that own a table add their rows to a batch
//! (the queue its jobs, `repo::idempotency` its answers) instead of writing each other's SQL.
//!
//! Only placeholders are ever put into the SQL text; values always travel as parameters.

use serde_json::value::RawValue;
use sqlx::types::Json;
use uuid::Uuid;

use super::{Backend, DbError, Tx, TxConn};

/// One bound value. Nullable kinds carry their type even when null: PostgreSQL checks a
/// parameter's declared type against its column, null or not.
#[derive(Debug, Clone)]
pub enum Value {
    Uuid(Uuid),
    Text(Option<String>),
    I64(i64),
    I32(Option<i32>),
    Bool(bool),
    /// Serialized JSON, stored as is (member order kept).
    Json(Option<Box<RawValue>>),
}

impl From<Uuid> for Value {
    fn from(v: Uuid) -> Self {
        Value::Uuid(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(Some(v.to_owned()))
    }
}
impl From<Option<&str>> for Value {
    fn from(v: Option<&str>) -> Self {
        Value::Text(v.map(str::to_owned))
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::I64(v)
    }
}
impl From<Option<i32>> for Value {
    fn from(v: Option<i32>) -> Self {
        Value::I32(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl Value {
    /// `value` serialized as JSON (`None`: SQL null).
    pub fn json<T: serde::Serialize>(value: Option<&T>) -> Result<Self, DbError> {
        let raw = value
            .map(|v| {
                serde_json::to_string(v)
                    .and_then(RawValue::from_string)
                    .map_err(|err| DbError::Encode(err.to_string()))
            })
            .transpose()?;
        Ok(Value::Json(raw))
    }
}

#[derive(Debug)]
struct Statement {
    sql: String,
    values: Vec<Value>,
    /// Run only on this backend (PostgreSQL's `pg_notify`, say); `None`: on both.
    only: Option<Backend>,
}

/// Statements to run in one transaction; see the module doc.
#[derive(Debug, Default)]
pub struct Batch {
    statements: Vec<Statement>,
}

impl Batch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a statement. Its `?` placeholders take the values of the [`bind`](Self::bind)
    /// calls that follow, in order.
    pub fn statement(&mut self, sql: &str) -> &mut Self {
        self.start(sql, None)
    }

    /// Starts a statement that only runs on `backend`.
    pub fn statement_on(&mut self, backend: Backend, sql: &str) -> &mut Self {
        self.start(sql, Some(backend))
    }

    fn start(&mut self, sql: &str, only: Option<Backend>) -> &mut Self {
        self.statements.push(Statement {
            sql: sql.to_owned(),
            values: Vec::new(),
            only,
        });
        self
    }

    /// Appends SQL to the current statement (the rows of a multi-row `VALUES`).
    pub fn sql(&mut self, more: &str) -> &mut Self {
        if let Some(last) = self.statements.last_mut() {
            last.sql.push_str(more);
        }
        self
    }

    /// Binds the next placeholder of the current statement.
    pub fn bind(&mut self, value: impl Into<Value>) -> &mut Self {
        if let Some(last) = self.statements.last_mut() {
            last.values.push(value.into());
        }
        self
    }

    /// The SQL this batch sends on `backend`, one string per round trip. Fails when a
    /// statement's placeholders and values do not match (a bug of the code that built it,
    /// caught here rather than left to bind nulls).
    fn plan(&self, backend: Backend) -> Result<Vec<(String, Vec<&Value>)>, DbError> {
        let mut trips: Vec<(String, Vec<&Value>)> = Vec::new();
        for statement in &self.statements {
            if statement.only.is_some_and(|only| only != backend) {
                continue;
            }
            let placeholders = statement.sql.matches('?').count();
            if placeholders != statement.values.len() {
                return Err(DbError::BadStatement(format!(
                    "batch statement has {placeholders} placeholders and {} values: {}",
                    statement.values.len(),
                    statement.sql
                )));
            }
            match backend {
                Backend::Sqlite => {
                    // sqlx binds a bare `?` to the next value across the statements of one
                    // query, so the statements can simply be joined.
                    if trips.is_empty() {
                        trips.push((String::new(), Vec::new()));
                    }
                    let (sql, values) = &mut trips[0];
                    sql.push_str(&statement.sql);
                    sql.push_str(";\n");
                    values.extend(&statement.values);
                }
                Backend::Postgres => {
                    trips.push((numbered(&statement.sql), statement.values.iter().collect()));
                }
            }
        }
        Ok(trips)
    }

    /// Runs every statement in `tx`.
    pub async fn run(&self, tx: &mut Tx) -> Result<(), DbError> {
        for (sql, values) in self.plan(tx.backend())? {
            // The same binding for both drivers: `query` is a different type on each.
            macro_rules! bound {
                ($conn:expr) => {{
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for value in values {
                        query = match value.clone() {
                            Value::Uuid(v) => query.bind(v),
                            Value::Text(v) => query.bind(v),
                            Value::I64(v) => query.bind(v),
                            Value::I32(v) => query.bind(v),
                            Value::Bool(v) => query.bind(v),
                            Value::Json(v) => query.bind(v.map(Json)),
                        };
                    }
                    query.execute($conn).await?;
                }};
            }
            match &mut tx.conn {
                TxConn::Sqlite(t) => bound!(&mut **t),
                TxConn::Postgres(t) => bound!(&mut **t),
            }
        }
        Ok(())
    }
}

/// `sql` with its `?` placeholders numbered `$1, $2, ...` for PostgreSQL.
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Batch {
        let mut batch = Batch::new();
        batch
            .statement("INSERT INTO a (x, y) VALUES (?, ?)")
            .bind(1_i64)
            .bind("one");
        batch
            .statement("INSERT INTO b (x) VALUES ")
            .sql("(?)")
            .bind(true)
            .sql(", (?)")
            .bind(false);
        batch
            .statement_on(Backend::Postgres, "SELECT pg_notify(?, '')")
            .bind("channel");
        batch
    }

    #[test]
    fn sqlite_gets_one_query_with_every_value_in_order() {
        let batch = sample();
        let trips = batch.plan(Backend::Sqlite).expect("plan");
        assert_eq!(trips.len(), 1);
        assert_eq!(
            trips[0].0,
            "INSERT INTO a (x, y) VALUES (?, ?);\nINSERT INTO b (x) VALUES (?), (?);\n"
        );
        assert_eq!(trips[0].1.len(), 4);
    }

    #[test]
    fn postgres_gets_one_numbered_statement_per_trip() {
        let batch = sample();
        let trips = batch.plan(Backend::Postgres).expect("plan");
        let sql: Vec<&str> = trips.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(
            sql,
            [
                "INSERT INTO a (x, y) VALUES ($1, $2)",
                "INSERT INTO b (x) VALUES ($1), ($2)",
                "SELECT pg_notify($1, '')"
            ]
        );
        assert_eq!(
            trips.iter().map(|(_, v)| v.len()).collect::<Vec<_>>(),
            [2, 2, 1]
        );
    }

    #[test]
    fn a_statement_short_of_values_is_an_error_not_a_null() {
        let mut batch = Batch::new();
        batch
            .statement("INSERT INTO a (x, y) VALUES (?, ?)")
            .bind(1_i64);
        let err = batch.plan(Backend::Sqlite).expect_err("mismatch");
        assert!(
            err.to_string().contains("2 placeholders and 1 values"),
            "{err}"
        );
    }
}
