//! The out-of-process backend: any program that speaks JSON lines on stdin/stdout (the protocol is
//! in the book's "Backend protocol" chapter).
//!
//! Request, one line: `{"id": N, "hlo": "...", "args": [...], "replicas": R}`, plus
//! `"infeed": [...]` when there are infeed values; or `{"id": N, "info": true}`, answered by
//! `{"id": N, "info": {"name": "...", "version": "..."}}` (optional for a backend). With `R > 1`, `"args"` is a list of per-replica
//! argument lists. Response, one line: `{"id": N, "result": LITERAL}` (a list of R literals when
//! `R > 1`) or `{"id": N, "error": "text"}`; either may carry `"outfeed"`.
//!
//! Robustness: the child is never trusted. It runs under `sh -c` in its own process group; one
//! thread writes requests to it and another reads its stdout into a channel, so the caller waits
//! with a deadline and never blocks forever (not even when the child stops reading its stdin).
//! A crash, a hang past the per-case timeout or a malformed answer fails that case with a
//! `backend.crashed` / `backend.timeout` / `backend.protocol` error carrying the tail of the
//! child's stderr; the child is killed and a fresh one started for the next case. A refusal (an
//! `error` response) is a `backend.refused` error.

use super::{Backend, Request, Response};
use crate::error::{Error, Result};
use crate::literal::{Literal, literal_from_json, literal_to_json};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Rule label of a backend's own refusal (an `error` response).
pub const REFUSED: &str = "backend.refused";
/// The child exited or closed its stdout before answering.
pub const CRASHED: &str = "backend.crashed";
/// The child did not answer within the timeout.
pub const TIMEOUT: &str = "backend.timeout";
/// The child answered something that is not a valid response.
pub const PROTOCOL: &str = "backend.protocol";

/// How much of the child's stderr is kept (the tail) for reports.
const STDERR_KEEP: usize = 8 << 10;
/// The longest response line accepted.
const MAX_LINE: usize = 1 << 30;

/// The default per-case timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

pub struct ProcessBackend {
    command: String,
    timeout: Duration,
    child: Option<Running>,
    next_id: u64,
    /// How many times a child was started (1 after the first case).
    pub starts: usize,
    /// The backend's answer to an `info` request, once asked.
    info: Option<BackendInfo>,
}

/// Who a backend is, from its answer to an `info` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendInfo {
    pub name: String,
    pub version: String,
}

enum FromChild {
    Line(String),
    Eof,
    Failed(String),
}

#[derive(Default)]
struct Tail {
    bytes: Vec<u8>,
    done: bool,
}

struct Running {
    child: Child,
    to_child: Sender<String>,
    from_child: Receiver<FromChild>,
    stderr: Arc<Mutex<Tail>>,
}

impl ProcessBackend {
    /// A backend that runs `command` with `sh -c` (started on first use).
    pub fn new(command: &str, timeout: Duration) -> ProcessBackend {
        ProcessBackend {
            command: command.to_string(),
            timeout,
            child: None,
            next_id: 1,
            starts: 0,
            info: None,
        }
    }

    fn start(&mut self) -> Result<()> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group, so a timeout kills the whole pipeline `sh -c` started.
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| {
            Error::runtime(format!("cannot start `{}`: {e}", self.command)).with_rule(CRASHED)
        })?;
        self.starts += 1;
        let (tx, rx) = channel();
        let (req_tx, req_rx) = channel::<String>();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let tail = Arc::new(Mutex::new(Tail::default()));
        // Writer: a child that stops reading blocks only this thread, which ends when the child is
        // killed (the write then fails).
        let wtx = tx.clone();
        std::thread::spawn(move || {
            let Some(mut stdin) = stdin else { return };
            for line in req_rx {
                if let Err(e) = stdin.write_all(line.as_bytes()).and_then(|_| stdin.flush()) {
                    let _ = wtx.send(FromChild::Failed(format!(
                        "writing the request failed: {e}"
                    )));
                    return;
                }
            }
        });
        std::thread::spawn(move || {
            let Some(stdout) = stdout else {
                let _ = tx.send(FromChild::Eof);
                return;
            };
            let mut r = BufReader::new(stdout);
            loop {
                match read_line_capped(&mut r) {
                    Ok(Some(l)) => {
                        if tx.send(FromChild::Line(l)).is_err() {
                            return;
                        }
                    }
                    Ok(None) => {
                        let _ = tx.send(FromChild::Eof);
                        return;
                    }
                    Err(m) => {
                        let _ = tx.send(FromChild::Failed(m));
                        return;
                    }
                }
            }
        });
        let t = tail.clone();
        std::thread::spawn(move || {
            if let Some(mut e) = stderr {
                let mut buf = [0u8; 4096];
                while let Ok(n) = e.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut tail) = t.lock() {
                        tail.bytes.extend_from_slice(&buf[..n]);
                        let len = tail.bytes.len();
                        if len > STDERR_KEEP {
                            tail.bytes.drain(..len - STDERR_KEEP);
                        }
                    }
                }
            }
            if let Ok(mut tail) = t.lock() {
                tail.done = true;
            }
        });
        self.child = Some(Running {
            child,
            to_child: req_tx,
            from_child: rx,
            stderr: tail,
        });
        Ok(())
    }

    /// Asks the backend who it is (an `info` request). `None` when it does not answer one (an
    /// `error` response, or any failure: the backend is restarted for the next request as usual).
    /// The answer is kept and used as the backend's name in reports.
    pub fn info(&mut self) -> Option<BackendInfo> {
        if let Some(i) = &self.info {
            return Some(i.clone());
        }
        if self.child.is_none() {
            self.start().ok()?;
        }
        let id = self.next_id;
        self.next_id += 1;
        let obj = self.roundtrip(id, json!({"id": id, "info": true})).ok()?;
        let i = obj.get("info")?;
        let field = |k: &str| {
            i.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .filter(|s| !s.trim().is_empty())
        };
        let info = BackendInfo {
            name: field("name")?,
            version: field("version")?,
        };
        self.info = Some(info.clone());
        Some(info)
    }

    /// Sends one request line and waits (until the timeout) for the response object with `id`.
    fn roundtrip(&mut self, id: u64, msg: Value) -> Result<serde_json::Map<String, Value>> {
        let line = format!("{msg}\n");
        let deadline = Instant::now() + self.timeout;
        let Some(r) = &mut self.child else {
            return Err(Error::internal("backend child missing"));
        };
        if let Ok(mut t) = r.stderr.lock() {
            t.bytes.clear();
        }
        if r.to_child.send(line).is_err() {
            return Err(self.failure(CRASHED, "the backend stopped reading requests".into()));
        }
        loop {
            let Some(r) = &mut self.child else {
                return Err(Error::internal("backend child missing"));
            };
            let left = deadline.saturating_duration_since(Instant::now());
            let got = match r.from_child.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    let secs = self.timeout.as_secs_f64();
                    return Err(self.failure(
                        TIMEOUT,
                        format!("the backend did not answer within {secs} s; it was killed"),
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => FromChild::Eof,
            };
            let line = match got {
                FromChild::Line(l) => l,
                FromChild::Eof => {
                    return Err(self.failure(
                        CRASHED,
                        "the backend exited (or closed its stdout) without answering".into(),
                    ));
                }
                FromChild::Failed(m) => return Err(self.failure(CRASHED, m)),
            };
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = match serde_json::from_str(&line) {
                Ok(v) => v,
                Err(e) => {
                    return Err(self.failure(
                        PROTOCOL,
                        format!(
                            "the backend answered a line that is not JSON ({e}): {}",
                            short(&line)
                        ),
                    ));
                }
            };
            let Some(obj) = v.as_object() else {
                return Err(self.failure(
                    PROTOCOL,
                    format!("a response must be a JSON object: {}", short(&line)),
                ));
            };
            if obj.get("id").and_then(Value::as_u64) != Some(id) {
                return Err(self.failure(
                    PROTOCOL,
                    format!(
                        "expected a response with \"id\": {id}, got: {}",
                        short(&line)
                    ),
                ));
            }
            return Ok(obj.clone());
        }
    }

    /// Kills the child (and its process group) and returns the tail of its stderr.
    fn stop(&mut self, wait_for_stderr: bool) -> String {
        let Some(mut r) = self.child.take() else {
            return String::new();
        };
        kill_group(&mut r.child);
        let _ = r.child.wait();
        if wait_for_stderr {
            // The stderr reader finishes shortly after the child is gone.
            let until = Instant::now() + Duration::from_millis(300);
            while Instant::now() < until {
                if r.stderr.lock().map(|t| t.done).unwrap_or(true) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        stderr_text(&r.stderr)
    }

    /// Fails the current case: kills the child (a fresh one starts with the next case).
    fn failure(&mut self, rule: &str, what: String) -> Error {
        let crashed = rule == CRASHED;
        let status = match (&mut self.child, crashed) {
            (Some(r), true) => {
                // Give the exiting child a moment so its exit status can be reported.
                let until = Instant::now() + Duration::from_millis(300);
                let mut st = None;
                while Instant::now() < until {
                    if let Ok(Some(s)) = r.child.try_wait() {
                        st = Some(s);
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                st.map(|s| format!(" ({s})")).unwrap_or_default()
            }
            _ => String::new(),
        };
        let stderr = self.stop(true);
        let mut msg = format!("{what}{status}");
        if !stderr.trim().is_empty() {
            msg.push_str(&format!("; backend stderr (tail):\n{}", stderr.trim_end()));
        }
        Error::runtime(msg).with_rule(rule)
    }
}

impl Drop for ProcessBackend {
    fn drop(&mut self) {
        self.stop(false);
    }
}

fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg("--")
            .arg(format!("-{}", child.id()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
}

fn stderr_text(t: &Mutex<Tail>) -> String {
    t.lock()
        .map(|t| String::from_utf8_lossy(&t.bytes).into_owned())
        .unwrap_or_default()
}

/// One line without its newline; `None` at end of stream; an error for an over-long line.
fn read_line_capped(r: &mut impl BufRead) -> std::result::Result<Option<String>, String> {
    let mut line = Vec::new();
    loop {
        let buf = r
            .fill_buf()
            .map_err(|e| format!("reading the backend's stdout failed: {e}"))?;
        if buf.is_empty() {
            return Ok(if line.is_empty() {
                None
            } else {
                Some(String::from_utf8_lossy(&line).into_owned())
            });
        }
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i)),
            None => (buf, None),
        };
        line.extend_from_slice(chunk);
        let used = found.map(|i| i + 1).unwrap_or(chunk.len());
        r.consume(used);
        if line.len() > MAX_LINE {
            return Err(format!("a response line is longer than {MAX_LINE} bytes"));
        }
        if found.is_some() {
            return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
        }
    }
}

fn short(s: &str) -> String {
    crate::error::shorten(s, 120)
}

fn literal_list(v: &Value, what: &str) -> std::result::Result<Vec<Literal>, String> {
    v.as_array()
        .ok_or_else(|| format!("\"{what}\" must be a list"))?
        .iter()
        .map(|l| literal_from_json(l).map_err(|e| format!("{what}: {}", e.message)))
        .collect()
}

/// Decodes a response's value for `replicas` replicas.
fn decode(
    obj: &serde_json::Map<String, Value>,
    replicas: usize,
) -> std::result::Result<Response, String> {
    let result = obj
        .get("result")
        .ok_or("the response has neither \"result\" nor \"error\"")?;
    let results = if replicas > 1 {
        let l = literal_list(result, "result")?;
        if l.len() != replicas {
            return Err(format!(
                "\"result\" must list {replicas} values (one per replica), got {}",
                l.len()
            ));
        }
        l
    } else {
        vec![literal_from_json(result).map_err(|e| format!("result: {}", e.message))?]
    };
    let outfeed = match obj.get("outfeed") {
        None => vec![vec![]; replicas],
        Some(v) if replicas > 1 => v
            .as_array()
            .filter(|a| a.len() == replicas)
            .ok_or("\"outfeed\" must be a list of per-replica lists")?
            .iter()
            .map(|l| literal_list(l, "outfeed"))
            .collect::<std::result::Result<_, _>>()?,
        Some(v) => vec![literal_list(v, "outfeed")?],
    };
    Ok(Response { results, outfeed })
}

impl Backend for ProcessBackend {
    /// `NAME VERSION` once the backend answered an `info` request, else its command line.
    fn name(&self) -> String {
        match &self.info {
            Some(i) => format!("{} {}", i.name, i.version),
            None => self.command.clone(),
        }
    }

    fn execute(&mut self, req: &Request) -> Result<Response> {
        if self.child.is_none() {
            self.start()?;
        }
        let id = self.next_id;
        self.next_id += 1;
        let replicas = req.args.len().max(1);
        let args: Value = if replicas > 1 {
            Value::Array(
                req.args
                    .iter()
                    .map(|a| Value::Array(a.iter().map(literal_to_json).collect()))
                    .collect(),
            )
        } else {
            Value::Array(
                req.args
                    .first()
                    .map(|a| a.iter().map(literal_to_json).collect())
                    .unwrap_or_default(),
            )
        };
        let mut msg = json!({"id": id, "hlo": req.hlo, "args": args, "replicas": replicas});
        if !req.infeed.is_empty() {
            msg["infeed"] = Value::Array(req.infeed.iter().map(literal_to_json).collect());
        }
        let obj = self.roundtrip(id, msg)?;
        if let Some(e) = obj.get("error") {
            let text = e
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| e.to_string());
            return Err(Error::runtime(text).with_rule(REFUSED));
        }
        decode(&obj, replicas)
            .map_err(|m| self.failure(PROTOCOL, format!("malformed response: {m}")))
    }
}
