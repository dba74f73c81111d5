//! A small agent loop for skillbook: a [`PreparedRun`] sent to a model that speaks OpenAI's
//! Chat Completions or Anthropic's Messages API, its skill tool calls answered by the run, turn
//! after turn, until the model answers or the turn limit is reached.
//!
//! It is the loop `skillbook agent` runs, so a skill author can watch a real model find and use
//! their skills, and a starting point for a host's own loop: prepare → send → parse the calls →
//! [`PreparedRun::answer`] → send the results → repeat. One blocking HTTP client (reqwest on
//! rustls with ring), streaming off; a `429` or `5xx` answer, or a connection that fails, is
//! tried again after a pause (the server's `retry-after` when it gives one).
//!
//! ```no_run
//! use skillbook::runtime::{Resolver, RunRequest, SkillRuntime};
//! use skillbook_agent::{Agent, Endpoint};
//!
//! let runtime = SkillRuntime::new(Resolver::workspace("."));
//! let run = runtime.prepare(RunRequest::new("You are a helpful assistant."))?;
//! let endpoint = Endpoint::openai("gpt-4.1-mini").api_key(std::env::var("OPENAI_API_KEY")?);
//! let finished = Agent::new(endpoint).run(&run, "Fill in this PDF form.", |event| {
//!     eprintln!("{event:?}");
//! })?;
//! println!("{}", finished.answer.unwrap_or_default());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use skillbook::runtime::{PreparedRun, RunRecord, ToolCall, ToolResult};

mod api;
mod http;

pub use http::Retry;

/// The API a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelApi {
    /// OpenAI Chat Completions (`POST {base}/chat/completions`), or any server compatible with
    /// it. Serialized `openai_chat`.
    OpenAiChat,
    /// Anthropic Messages (`POST {base}/v1/messages`). Serialized `anthropic`.
    Anthropic,
}

impl ModelApi {
    /// The base URL of the public API: `https://api.openai.com/v1` or
    /// `https://api.anthropic.com`.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ModelApi::OpenAiChat => "https://api.openai.com/v1",
            ModelApi::Anthropic => "https://api.anthropic.com",
        }
    }
}

/// Where a model is reached: its API, base URL, key and model name.
#[derive(Clone)]
pub struct Endpoint {
    api: ModelApi,
    base_url: String,
    api_key: Option<String>,
    model: String,
    max_tokens: u32,
}

impl std::fmt::Debug for Endpoint {
    // The key is never shown.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Endpoint")
            .field("api", &self.api)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl Endpoint {
    /// `model` through `api`'s public URL, without a key.
    pub fn new(api: ModelApi, model: impl Into<String>) -> Self {
        Endpoint {
            api,
            base_url: api.default_base_url().to_owned(),
            api_key: None,
            model: model.into(),
            max_tokens: 4096,
        }
    }

    /// `model` through OpenAI's Chat Completions.
    pub fn openai(model: impl Into<String>) -> Self {
        Endpoint::new(ModelApi::OpenAiChat, model)
    }

    /// `model` through Anthropic's Messages.
    pub fn anthropic(model: impl Into<String>) -> Self {
        Endpoint::new(ModelApi::Anthropic, model)
    }

    /// Another base URL (a compatible server, a proxy); a trailing `/` is dropped.
    #[must_use]
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into().trim_end_matches('/').to_owned();
        self
    }

    /// The API key: sent as `Authorization: Bearer` to OpenAI, `x-api-key` to Anthropic.
    #[must_use]
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The most tokens the model may write in one turn, sent to Anthropic (which requires it;
    /// OpenAI's default is left alone). Default: 4096.
    #[must_use]
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = tokens;
        self
    }

    /// The API.
    pub fn api(&self) -> ModelApi {
        self.api
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }
}

/// What the loop does, as it does it: for a transcript.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event<'e> {
    /// The model called a tool.
    Call(&'e ToolCall),
    /// The call's result, as the model will read it.
    Result(&'e ToolResult),
    /// The model answered.
    Answer(&'e str),
    /// The API answered `status` (`None`: no answer came); the request is sent again after
    /// `wait`.
    Retry { status: Option<u16>, wait: Duration },
}

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stop {
    /// The model answered without calling a tool.
    Answered,
    /// The turn limit was reached with the model still calling tools.
    TurnLimit,
}

/// A finished run: what was sent, the whole conversation, and the answer. It serializes as
/// `skillbook agent --format json` prints it, and [`Agent::resume`] goes on with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Finished {
    /// The prepared run (system prompt, tools, items, catalog fingerprint).
    pub record: RunRecord,
    /// The API the conversation is written for.
    pub api: ModelApi,
    /// The model.
    pub model: String,
    /// The conversation after the system prompt and the run's items, in the API's own shape:
    /// the user's tasks, the model's turns and the tool results.
    pub messages: Vec<Value>,
    /// The model's last answer, if it gave one.
    pub answer: Option<String>,
    /// The model turns this run took (a resumed run counts from where it goes on).
    pub turns: usize,
    /// Why it stopped.
    pub stop: Stop,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The API answered with an error that trying again does not help (or retries ran out).
    #[error("the model API at {url} answered {status}: {message}")]
    Api {
        url: String,
        status: u16,
        /// The provider's own message (its error body's `message`), or the body's start.
        message: String,
    },
    /// No answer came from the API.
    #[error("could not reach the model API at {url}: {reason}. Check the base URL and the network")]
    Unreachable { url: String, reason: String },
    /// The answer is not the API's response shape.
    #[error("the model API at {url} sent a response that is not {api:?}'s: {problem}")]
    Response {
        url: String,
        api: ModelApi,
        problem: String,
    },
    /// The run cannot go to this API: a host tool is another provider's built-in tool.
    #[error(transparent)]
    Run(#[from] skillbook::runtime::RuntimeError),
    /// The run failed after taking turns: `partial` is the conversation so far (its `stop` is
    /// [`Stop::TurnLimit`]), which [`Agent::resume`] goes on with once the cause has passed.
    #[error("{source} (after {} turns; the conversation so far is kept)", partial.turns)]
    Interrupted {
        /// Why the run stopped.
        source: Box<AgentError>,
        /// The conversation until then.
        partial: Box<Finished>,
    },
    /// A stored run that ended with the model's answer was resumed without a new task.
    #[error("the stored run ended with the model's answer; give a new task to go on with it")]
    NothingToResume,
    /// A stored conversation written for another API or model server.
    #[error(
        "the stored run was written for {stored:?}, not {asked:?}; resume it with the same \
         provider"
    )]
    OtherApi { stored: ModelApi, asked: ModelApi },
}

/// The loop: an endpoint, a turn limit and a retry policy.
#[derive(Debug, Clone)]
pub struct Agent {
    endpoint: Endpoint,
    max_turns: usize,
    retry: Retry,
    timeout: Duration,
}

impl Agent {
    /// A loop over `endpoint`: at most 10 turns, [`Retry::default`], 120 s a request.
    pub fn new(endpoint: Endpoint) -> Self {
        Agent {
            endpoint,
            max_turns: 10,
            retry: Retry::default(),
            timeout: Duration::from_secs(120),
        }
    }

    /// The most model turns a run takes. Default: 10.
    #[must_use]
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.max_turns = turns;
        self
    }

    /// How failed requests are tried again.
    #[must_use]
    pub fn retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    /// How long one request may take. Default: 120 s.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Runs `task` through `run`, telling `observe` each call, result, answer and retry.
    ///
    /// # Errors
    ///
    /// [`AgentError`]: the API refused a request, could not be reached, or answered in another
    /// shape.
    pub fn run(
        &self,
        run: &PreparedRun,
        task: &str,
        observe: impl FnMut(&Event<'_>),
    ) -> Result<Finished, AgentError> {
        let messages = vec![api::user_message(self.endpoint.api, task)];
        self.converse(run, messages, observe)
    }

    /// Goes on with a stored run: its conversation, then `task` (when given) as the user's next
    /// message. `run` is the stored record prepared again ([`skillbook::runtime::SkillRuntime::resume`]).
    ///
    /// # Errors
    ///
    /// [`AgentError::OtherApi`] when the conversation was written for another API,
    /// [`AgentError::NothingToResume`] when it ended with an answer and no task is given; then
    /// as [`Agent::run`].
    pub fn resume(
        &self,
        run: &PreparedRun,
        stored: Finished,
        task: Option<&str>,
        observe: impl FnMut(&Event<'_>),
    ) -> Result<Finished, AgentError> {
        if stored.api != self.endpoint.api {
            return Err(AgentError::OtherApi {
                stored: stored.api,
                asked: self.endpoint.api,
            });
        }
        let mut messages = stored.messages;
        match task {
            Some(task) => messages.push(api::user_message(self.endpoint.api, task)),
            // The model has the last word: without a new task there is nothing to go on with.
            None if stored.stop == Stop::Answered => return Err(AgentError::NothingToResume),
            None => {}
        }
        self.converse(run, messages, observe)
    }

    /// The loop itself, from `messages`.
    fn converse(
        &self,
        run: &PreparedRun,
        mut messages: Vec<Value>,
        mut observe: impl FnMut(&Event<'_>),
    ) -> Result<Finished, AgentError> {
        let client = http::Client::new(&self.endpoint, self.timeout, self.retry)?;
        let mut turns = 0;
        let mut answer = None;
        let stop = loop {
            if turns == self.max_turns {
                break Stop::TurnLimit;
            }
            turns += 1;
            let turn = api::request(&self.endpoint, run, &messages)
                .and_then(|body| client.send(&body, &mut observe))
                .and_then(|response| api::turn(&self.endpoint, &client.url, &response));
            let turn = match turn {
                Ok(turn) => turn,
                // Turns already taken are not lost: the conversation so far goes with the error.
                Err(error) if turns > 1 => {
                    return Err(AgentError::Interrupted {
                        source: Box::new(error),
                        partial: Box::new(self.finished(
                            run,
                            messages,
                            None,
                            turns - 1,
                            Stop::TurnLimit,
                        )),
                    });
                }
                Err(error) => return Err(error),
            };
            if !api::is_empty(&turn.message) {
                messages.push(turn.message);
            }
            if turn.calls.is_empty() {
                observe(&Event::Answer(&turn.text));
                answer = Some(turn.text);
                break Stop::Answered;
            }
            let results = run.answer(&turn.calls, |call| {
                ToolResult::error(call, format!("unknown tool `{}`", call.name))
            });
            for (call, result) in turn.calls.iter().zip(&results) {
                observe(&Event::Call(call));
                observe(&Event::Result(result));
            }
            messages.extend(api::results(self.endpoint.api, &results));
        };
        Ok(self.finished(run, messages, answer, turns, stop))
    }

    /// The run as it stands.
    fn finished(
        &self,
        run: &PreparedRun,
        messages: Vec<Value>,
        answer: Option<String>,
        turns: usize,
        stop: Stop,
    ) -> Finished {
        Finished {
            record: run.record(),
            api: self.endpoint.api,
            model: self.endpoint.model.clone(),
            messages,
            answer,
            turns,
            stop,
        }
    }
}
