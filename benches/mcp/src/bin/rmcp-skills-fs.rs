//! rmcp 3.11.0's own filesystem skill catalog (`skills-fs`), as the baseline for `skillbook mcp`.
//!
//! ```text
//! rmcp-skills-fs index ROOT   # time SkillCatalog::from_dir(ROOT); prints one JSON line
//! rmcp-skills-fs serve ROOT   # a minimal MCP server over stdio holding that catalog
//! ```
//!
//! `index` prints `{"tool":"rmcp-skills-fs","mode":"index","root":…,"skills":N,"from_dir_ms":T}`,
//! where `T` is the wall time of `SkillCatalog::from_dir` alone (walk, read and hash every file,
//! parse every front matter) and `N` the number of skills it loaded.
//!
//! `serve` loads the catalog first (as the rmcp documentation shows: the catalog is built before
//! the server starts) and then serves it with exactly the handler of the module documentation of
//! `rmcp::handler::server::skill_catalog`: `skills/list` (every skill on one page),
//! `skills/get`, `resources/list`, `resources/read` and `resources/directory/read`. It runs on a
//! current-thread tokio runtime, like `skillbook mcp`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt, handler::server::skill_catalog::SkillCatalog,
    model::*, service::RequestContext,
};

#[derive(Clone)]
struct Server {
    skills: Arc<SkillCatalog>,
}

// The handler of the `skill_catalog` module documentation, unchanged.
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_skills_with_directory_read()
                .build(),
        )
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        Ok(self.skills.list_skills())
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.skills.get_skill(&request.uri)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.skills.read_resource_directory(&request.uri)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.skills.resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.skills
            .read_resource(&request.uri)
            .map(Into::into)
            .ok_or_else(|| ErrorData::resource_not_found(request.uri, None))
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: rmcp-skills-fs index ROOT | rmcp-skills-fs serve ROOT");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [mode, root] = arguments.as_slice() else {
        return usage();
    };
    let root = PathBuf::from(root);
    match mode.as_str() {
        "index" => index(root),
        "serve" => serve(root),
        _ => usage(),
    }
}

fn index(root: PathBuf) -> ExitCode {
    let start = Instant::now();
    let catalog = match SkillCatalog::from_dir(&root) {
        Ok(catalog) => catalog,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let elapsed = start.elapsed();
    // Counted after the clock stops: `skills()` clones the list.
    let skills = catalog.skills().len();
    println!(
        "{}",
        serde_json::json!({
            "tool": "rmcp-skills-fs",
            "mode": "index",
            "root": root.display().to_string(),
            "skills": skills,
            "from_dir_ms": elapsed.as_secs_f64() * 1e3,
        })
    );
    // Skip freeing the catalog; the process ends anyway.
    std::mem::forget(catalog);
    ExitCode::SUCCESS
}

fn serve(root: PathBuf) -> ExitCode {
    let catalog = match SkillCatalog::from_dir(&root) {
        Ok(catalog) => catalog,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let server = Server {
        skills: Arc::new(catalog),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result: Result<(), Box<dyn std::error::Error>> = runtime.block_on(async move {
        let service = server.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
