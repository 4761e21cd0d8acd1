"""What a paste says besides its error lines: its ecosystem, OS, versions and services.

Pure text functions over a paste (and their counterparts over one record),
used by the ranker as evidence that a record is about the paste's world:

- the *services* a paste talks to, named by well-known ports (``:5432``), client
  libraries and drivers (``psycopg2``, ``redis/connection.py``, ``pymongo``,
  ``com.mysql.cj``) or plain names: a connection refused raised by a database's
  client on its port is that database's error, not a generic network one;
- the *OS* it ran on (``C:\\``, ``/Users/``, ``WinError``, ``darwin``);
- the ecosystem *words* that name a tool (``kubelet``, ``vllm``), with
  :data:`DOMAIN_HINTS` mapping tools to the domains they belong to.
"""

from __future__ import annotations

import re

import ahocorasick

#: Services a paste can name without saying their name: their ports, client libraries,
#: drivers and package paths. Name → lower-case literals, any of which names it.
SERVICES: dict[str, tuple[str, ...]] = {
    "postgres": (
        ":5432",
        " 5432",
        "psycopg",
        "pg_hba",
        "postgres",
        "libpq",
        "org.postgresql",
        "asyncpg",
        "psql",
        "pgx",
    ),
    "mysql": (":3306", " 3306", "mysql", "mariadb", "pymysql", "com.mysql"),
    "redis": (":6379", " 6379", "redis", "ioredis", "jedis"),
    "mongodb": (":27017", " 27017", "mongo", "mongoose"),
    "elasticsearch": (":9200", " 9200", "elasticsearch", "opensearch", "elastic.co"),
    "kafka": (":9092", " 9092", "kafka"),
    "rabbitmq": (":5672", " 5672", "rabbitmq", "amqp", "pika."),
    "docker": ("docker.sock", "dockerd", "docker "),
    "kubernetes": (":6443", "kubectl", "kubelet", "k8s", "kube-apiserver"),
    "nginx": ("nginx",),
    "grpc": ("grpc",),
    "huggingface": ("huggingface.co", "huggingface_hub", "hf_hub"),
}
#: OS evidence in a paste: Windows paths and errors, macOS home folders, Linux package tools.
OPERATING_SYSTEMS: dict[str, tuple[str, ...]] = {
    "windows": (
        "c:\\",
        "d:\\",
        "winerror",
        "windows",
        ".exe",
        "powershell",
        "appdata",
        "\\users\\",
    ),
    "macos": ("/users/", "darwin", "macos", "mac os", "brew install", "homebrew", ".dylib"),
    "linux": (
        "/home/",
        "/usr/lib",
        "apt-get",
        "apt install",
        "ubuntu",
        "debian",
        "centos",
        "linux",
    ),
}


def _automaton(groups: dict[str, tuple[str, ...]]) -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    by_key: dict[str, set[str]] = {}
    for name, keys in groups.items():
        for key in keys:
            by_key.setdefault(key, set()).add(name)
    for key, names in by_key.items():
        automaton.add_word(key, frozenset(names))
    automaton.make_automaton()
    return automaton


_SERVICES = _automaton(SERVICES)
_OS = _automaton(OPERATING_SYSTEMS)
_SCAN = 60_000  # characters looked at: the head and the tail of a long paste

#: Words in a paste that place it in a domain without naming it: the tools, commands
#: and libraries of that ecosystem (``kubelet`` is Kubernetes, ``ollama`` an LLM).
DOMAIN_HINTS: dict[str, frozenset[str]] = {
    domain: frozenset(words.split())
    for domain, words in {
        "kubernetes": "k8s kubectl kubelet kubeadm kube minikube "
        "helm pod pods kustomize eks gke aks",
        "docker": "dockerd dockerfile buildx buildkit containerd moby oci runc",
        "cicd": "ci workflow workflows runner jenkins gitlab circleci actions ansible",
        "huggingface": "hf transformers huggingface_hub hub tokenizers safetensors accelerate peft",
        "llm": "openai ollama llama gpt chatgpt anthropic "
        "claude langchain llamaindex vllm tiktoken",
        "pytorch": "torch torchrun cuda nccl autograd",
        "tensorflow": "tf keras tensorboard",
        "cuda": "nvidia nvcc cudnn cublas nccl gpu",
        "database": "postgres postgresql psql psycopg2 psycopg mysql mariadb sqlite sql",
        "mongodb": "mongo mongod mongosh mongoose pymongo",
        "redis": "redis-cli",
        "elasticsearch": "elastic opensearch kibana",
        "git": "github gitlab",
        "aws": "boto3 botocore s3 iam ec2 lambda sts",
        "cloud": "gcp gcloud azure",
        "nextjs": "next",
        "react": "jsx",
        "node": "npm yarn pnpm nodejs",
        "typescript": "tsc tsx",
        "pip": "setuptools wheel pypi",
        "php": "composer laravel",
        "dotnet": "nuget msbuild csproj",
        "rust": "rustc",
        "go": "goroutine",
        "java": "jvm jdk maven gradle spring",
        "networking": "tcp dns ssl tls http https",
        "nginx": "upstream",
    }.items()
}


#: Words that name a tool when a record is tagged with them (``cuda``, ``deepspeed``): a
#: record's tags say which tools it is about beyond its domain.
TOOL_WORDS: frozenset[str] = (
    frozenset(DOMAIN_HINTS)
    | frozenset().union(*DOMAIN_HINTS.values())
    | frozenset(SERVICES)
    | frozenset(
        "bitsandbytes deepspeed triton xformers flash-attn apex megatron onnx onnxruntime"
        " tensorrt jax xla cudnn vllm sglang lmdeploy".split()
    )
)


def _names(automaton: ahocorasick.Automaton, text: str) -> frozenset[str]:
    if len(text) > _SCAN:
        text = text[: _SCAN // 2] + "\n" + text[-_SCAN // 2 :]
    found: set[str] = set()
    for _, names in automaton.iter(text):
        found |= names
    return frozenset(found)


def services(text: str) -> frozenset[str]:
    """The services ``text`` (lower-cased) names by port, client library, driver or name."""
    return _names(_SERVICES, text)


def paste_os(text: str) -> str:
    """The OS a paste (lower-cased) shows, or "" when it shows none or several."""
    found = _names(_OS, text)
    return next(iter(found)) if len(found) == 1 else ""


def record_os(env: str) -> str:
    """The OS a record is written for, from its id's environment part (``docker27-linux``,
    ``pip23-macos-arm64``, ``docker24-wsl2``), or "" for any OS."""
    parts = set(env.lower().split("-"))
    for name in ("windows", "macos", "linux"):
        if name in parts:
            return name
    return "linux" if "wsl2" in parts else ""


_PACKAGE = re.compile(
    r"(?:site-packages|dist-packages|node_modules)[\\/](?:@[\w.-]+[\\/])?([a-z][\w.-]*)"
    r"|github\.com/[\w.-]+/([a-z][\w.-]*)"
    r"|[\\/]([a-z][\w-]*)[\\/][\w-]+\.py\b"  # the package a Python file is in
)


def packages(text: str) -> frozenset[str]:
    """The packages a paste (lower-cased) shows in its paths and links: the library under
    ``site-packages/`` or ``node_modules/`` a frame is in, the directory a Python file is
    in (``bitsandbytes/cextension.py``), the project an issue link names."""
    if len(text) > _SCAN:
        text = text[: _SCAN // 2] + "\n" + text[-_SCAN // 2 :]
    found = {a or b or c for a, b, c in _PACKAGE.findall(text)}
    return frozenset(n.replace("-", "_").removesuffix(".py") for n in found)
