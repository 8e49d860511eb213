# ruff: noqa: E501  (section ids are long and must stay whole, one per line)
"""Build the judged known-item query set for `search_docs` (BEIR layout: queries.jsonl, qrels/test.tsv).

Each query below was written by hand, after reading one documentation section, to find that section.
Kinds: "paraphrase" asks for the section's content in a user's words, avoiding the heading's words;
"heading" is the section's heading, lightly reworded; "error_or_task" is an error message or a task that the
section answers. A query with a version (the tool's `version` argument) judges only the picked section.
A query without one also judges the same page and heading path in the other versions, when that section's
text is near-identical (difflib ratio >= 0.9, autojunk off). ALSO_RELEVANT lists other sections that answer
a query just as well, found by a word search and by reading them. Only section ids are written, never text.

    .venv/bin/python evaluation/search_docs/build.py
    .venv/bin/python evaluation/search_docs/build.py --sections ../shared/data/haystack-docs/sections.jsonl
"""

import argparse
import difflib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from haygate.evaluation.datasets import write_judged_queries

HERE = Path(__file__).resolve().parent
PROJECT = Path(__file__).resolve().parents[2]
DEFAULT_SECTIONS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
NEAR_IDENTICAL = 0.9  # difflib ratio from which a section in another version counts as the same section
MIN_TEXT = 300  # characters a picked section must have
GENERIC_HEADINGS = {"overview", "usage", "parameters", "on its own", "in a pipeline", "installation", "example"}

Kind = Literal["paraphrase", "heading", "error_or_task"]
KINDS: tuple[Kind, ...] = ("paraphrase", "heading", "error_or_task")

# (picked section id, kind, query, version the query fixes or None).
QUERIES: list[tuple[str, Kind, str, str | None]] = [
    # version 3.0
    (
        "3.0/concepts/components.mdx#Components/Warming Up Components#4",
        "paraphrase",
        "do I have to load the embedding model myself before the first run",
        "3.0",
    ),
    (
        "3.0/concepts/components/custom-components.mdx#Creating Custom Components/Requirements/Inputs and Outputs/Outputs#4",
        "paraphrase",
        "declare a component's result sockets at runtime instead of with a decorator",
        None,
    ),
    (
        "3.0/concepts/components/custom-components.mdx#Creating Custom Components/Extending the Existing Components#7",
        "error_or_task",
        "subclass a built-in Haystack component and override its run method",
        None,
    ),
    (
        "3.0/concepts/components/supercomponents.mdx#SuperComponents/Type Checking and Static Code Analysis#7",
        "error_or_task",
        "mypy reports errors on my class decorated with @super_component",
        None,
    ),
    (
        "3.0/concepts/data-classes/chatmessage.mdx#ChatMessage/Working with a ChatMessage/from_tool#8",
        "heading",
        "ChatMessage.from_tool",
        None,
    ),
    (
        "3.0/concepts/data-classes/filecontent.mdx#FileContent/Create from base64 data#4",
        "paraphrase",
        "attach a PDF I already hold as bytes in memory to a chat message",
        "3.0",
    ),
    (
        "3.0/concepts/device-management.mdx#Device Management/Concepts#1",
        "paraphrase",
        "spread the layers of a local model over several GPUs",
        None,
    ),
    (
        "3.0/concepts/document-store.mdx#Document Store/DocumentStore Protocol/DuplicatePolicy#4",
        "error_or_task",
        "writing a document whose ID is already stored raises an error",
        "3.0",
    ),
    (
        "3.0/concepts/document-store/choosing-a-document-store.mdx#Choosing a Document Store/Vector Index Libraries#10",
        "heading",
        "vector index libraries as a document store",
        "3.0",
    ),
    (
        "3.0/concepts/document-store/creating-custom-document-stores.mdx#Creating Custom Document Stores/Recommendations/Naming Convention#2",
        "paraphrase",
        "what should I call the Python package for my own document store integration",
        None,
    ),
    (
        "3.0/concepts/jinja-templates.mdx#Jinja Templates/Safety Features#2",
        "paraphrase",
        "is it dangerous to let end users write their own prompt templates",
        None,
    ),
    (
        "3.0/concepts/metadata-filtering.mdx#Metadata Filtering/Filtering Types/Comparison#2",
        "heading",
        "metadata filtering comparison operators",
        None,
    ),
    (
        "3.0/concepts/metadata-filtering.mdx#Metadata Filtering/Filtering Types/Logic#4",
        "paraphrase",
        "combine several filter conditions with AND, OR or NOT",
        None,
    ),
    (
        "3.0/concepts/pipelines.mdx#Pipelines/Flexibility/Async Execution and Streaming/Error Handling and Task Cancellation#7",
        "paraphrase",
        "what happens to components still running in parallel when another one raises an exception",
        "3.0",
    ),
    (
        "3.0/concepts/pipelines.mdx#Pipelines/Validation#12",
        "paraphrase",
        "when does Haystack check that the types of connected components are compatible",
        None,
    ),
    (
        "3.0/concepts/pipelines/creating-pipelines.mdx#Creating Pipelines/Pipeline Inputs#9",
        "paraphrase",
        "list the inputs a pipeline needs before I run it",
        None,
    ),
    (
        "3.0/concepts/pipelines/debugging-pipelines.mdx#Debugging Pipelines/Inspecting Component Outputs#2",
        "error_or_task",
        "see what the prompt builder produced in the middle of a pipeline run",
        None,
    ),
    (
        "3.0/concepts/pipelines/pipeline-breakpoints.mdx#Pipeline Breakpoints/Snapshot file saving#4",
        "error_or_task",
        "breakpoint triggered but no snapshot JSON file was written to disk",
        "3.0",
    ),
    (
        "3.0/concepts/pipelines/pipeline-breakpoints.mdx#Pipeline Breakpoints/Error Recovery with Snapshots/Access the Snapshot on Failure#7",
        "error_or_task",
        "get the intermediate outputs from a PipelineRuntimeError after a crash",
        None,
    ),
    (
        "3.0/concepts/pipelines/pipeline-loops.mdx#Pipeline Loops/Loop Termination and Safety Limits#2",
        "error_or_task",
        "PipelineMaxComponentRuns error: how to change the limit on runs per component",
        None,
    ),
    (
        "3.0/concepts/pipelines/pipeline-loops.mdx#Pipeline Loops/Greedy vs. Lazy Variadic Sockets in Loops#6",
        "heading",
        "greedy versus lazy variadic sockets in loops",
        None,
    ),
    (
        "3.0/concepts/pipelines/serialization.mdx#Serializing Pipelines/Deserialization Security/Allowing Custom Modules#4",
        "error_or_task",
        "Pipeline.load refuses to import my custom component from my own package",
        "3.0",
    ),
    (
        "3.0/concepts/pipelines/serialization.mdx#Serializing Pipelines/Saving a Pipeline to a Custom Format#8",
        "heading",
        "saving a pipeline in a custom format with a Marshaller",
        None,
    ),
    (
        "3.0/concepts/pipelines/smart-pipeline-connections.mdx#Smart Pipeline Connections/Implicit List Joining#1",
        "paraphrase",
        "connect the document lists of two retrievers to one input without a joiner",
        None,
    ),
    (
        "3.0/concepts/pipelines/visualizing-pipelines.mdx#Visualizing Haystack Pipelines/Visualizing Locally#6",
        "paraphrase",
        "draw a pipeline diagram offline without sending it to the mermaid.ink web service",
        None,
    ),
    (
        "3.0/pipeline-components/agents-1/agent.mdx#Agent/Parameters/Runtime overrides#4",
        "paraphrase",
        "use only some of an agent's tools and a different temperature for a single call",
        "3.0",
    ),
    (
        "3.0/pipeline-components/agents-1/hooks.mdx#Hooks/Overview/State keys for hooks#3",
        "error_or_task",
        "ValueError because my state_schema uses a reserved key like continue_run",
        None,
    ),
    (
        "3.0/pipeline-components/agents-1/human-in-the-loop.mdx#Human in the Loop/Usage/Customizing feedback messages#5",
        "paraphrase",
        "change the text sent to the LLM when the user rejects or edits a tool call",
        None,
    ),
    (
        "3.0/pipeline-components/agents-1/state.mdx#State/Schema Definition/Custom Handlers#7",
        "paraphrase",
        "avoid duplicate entries when several tool calls append to the same agent state list",
        "3.0",
    ),
    (
        "3.0/pipeline-components/agents-1/agent-pack/deep-research-agent.mdx#Deep Research Agent/Configuration/Breadth and depth#6",
        "paraphrase",
        "how many sub-questions can the research orchestrator hand out and how many run at once",
        None,
    ),
    (
        "3.0/tools/tool.mdx#Tool/Tool Initialization/Advanced Tool Configuration/Shaping Tool outputs with `outputs_to_string`#7",
        "paraphrase",
        "control how a tool's return value is turned into text for the LLM",
        None,
    ),
    (
        "3.0/tools/searchabletoolset.mdx#SearchableToolset/Overview/Modes of operation#2",
        "paraphrase",
        "when does the agent get every tool directly instead of discovering them with search_tools",
        None,
    ),
    (
        "3.0/tools/skilltoolset.mdx#SkillToolset/Overview/Skill format#2",
        "heading",
        "SkillToolset skill format",
        None,
    ),
    (
        "3.0/tools/mcptool.mdx#MCPTool/Usage/With SSE Transport (deprecated)#6",
        "heading",
        "MCPTool with SSE transport",
        "3.0",
    ),
    (
        "3.0/tools/ready-made-tools/e2btoolset.mdx#E2BToolset#0",
        "paraphrase",
        "let an agent run bash commands and manage files in a cloud sandbox",
        None,
    ),
    (
        "3.0/pipeline-components/builders/chatpromptbuilder.mdx#ChatPromptBuilder/Overview/String Templates/The `insert` Tag#5",
        "heading",
        "ChatPromptBuilder insert tag",
        None,
    ),
    (
        "3.0/pipeline-components/builders/promptbuilder.mdx#PromptBuilder/Usage/In a pipeline/Overwriting variables at runtime#10",
        "paraphrase",
        "give a prompt variable such as the answer language a different value for one pipeline run",
        None,
    ),
    (
        "3.0/pipeline-components/preprocessors/csvdocumentcleaner.mdx#CSVDocumentCleaner/Overview/Cleaning Process#3",
        "paraphrase",
        "drop empty rows and columns from tables while keeping the header rows in place",
        None,
    ),
    (
        "3.0/pipeline-components/preprocessors/pythoncodesplitter.mdx#PythonCodeSplitter/Usage/With docstring stripping for RAG#5",
        "paraphrase",
        "move docstrings out of code chunks into metadata but still embed them",
        None,
    ),
    (
        "3.0/pipeline-components/preprocessors/documentcleaner.mdx#DocumentCleaner#0",
        "paraphrase",
        "strip page headers, footers and extra blank lines from converted text",
        "3.0",
    ),
    (
        "3.0/pipeline-components/rankers/lostinthemiddleranker.mdx#LostInTheMiddleRanker#0",
        "paraphrase",
        "put the best documents at the start and end of the context so the LLM does not overlook them",
        None,
    ),
    (
        "3.0/pipeline-components/retrievers.mdx#Retrievers/FilterPolicy#10",
        "paraphrase",
        "my runtime filters replace the retriever's init filters; how do I combine both instead",
        None,
    ),
    (
        "3.0/pipeline-components/retrievers/sentencewindowretriever.mdx#SentenceWindowRetriever#0",
        "paraphrase",
        "return the neighbouring sentences of a retrieved chunk for more context",
        "3.0",
    ),
    (
        "3.0/pipeline-components/retrievers/weaviatehybridretriever.mdx#WeaviateHybridRetriever/Usage/Adjusting the Alpha Parameter#6",
        "heading",
        "WeaviateHybridRetriever alpha parameter",
        None,
    ),
    (
        "3.0/pipeline-components/retrievers/opensearchmetadataretriever.mdx#OpenSearchMetadataRetriever/Usage/Strict mode#6",
        "heading",
        "OpenSearchMetadataRetriever strict mode",
        None,
    ),
    (
        "3.0/pipeline-components/retrievers/multiretriever.mdx#MultiRetriever/Overview/Join modes#2",
        "heading",
        "MultiRetriever join modes",
        None,
    ),
    (
        "3.0/pipeline-components/routers/conditionalrouter.mdx#ConditionalRouter/Configuration/Output type validation#8",
        "error_or_task",
        "ConditionalRouter returns a string even though the route's output_type is int",
        "3.0",
    ),
    (
        "3.0/pipeline-components/validators/jsonschemavalidator.mdx#JsonSchemaValidator#0",
        "paraphrase",
        "check that the model's JSON reply matches my schema",
        None,
    ),
    (
        "3.0/pipeline-components/readers/transformersextractivereader.mdx#TransformersExtractiveReader/Overview/Models#2",
        "paraphrase",
        "recommended models for extracting answer spans from documents",
        "3.0",
    ),
    (
        "3.0/pipeline-components/converters/kreuzbergconverter.mdx#KreuzbergConverter/Additional Features/Token Reduction#7",
        "heading",
        "KreuzbergConverter token reduction",
        None,
    ),
    (
        "3.0/pipeline-components/converters/markdowntodocument.mdx#MarkdownToDocument/Usage/With YAML frontmatter#4",
        "heading",
        "MarkdownToDocument with YAML front matter",
        None,
    ),
    (
        "3.0/pipeline-components/converters/paddleocrvldocumentconverter.mdx#PaddleOCRVLDocumentConverter/When to use it#2",
        "paraphrase",
        "OCR for scanned multi-column documents with tables, formulas and seals",
        None,
    ),
    (
        "3.0/pipeline-components/embedders/vllmdocumentembedder.mdx#VLLMDocumentEmbedder/Overview/Batching and failure handling#5",
        "error_or_task",
        "vLLM document embedding requests fail but processing goes on without an exception",
        None,
    ),
    (
        "3.0/pipeline-components/embedders/googlegenaimultimodaldocumentembedder.mdx#GoogleGenAIMultimodalDocumentEmbedder/Usage/Setting embedding dimensions#7",
        "paraphrase",
        "reduce the size of Gemini image embedding vectors with Matryoshka",
        None,
    ),
    (
        "3.0/pipeline-components/extractors/regextextextractor.mdx#RegexTextExtractor/Overview/Handling no matches#2",
        "paraphrase",
        "what does the regex extractor output when the pattern is not found",
        "3.0",
    ),
    (
        "3.0/pipeline-components/fetchers/linkcontentfetcher.mdx#LinkContentFetcher/Security considerations#2",
        "paraphrase",
        "prevent SSRF when fetching web pages from URLs that users supply",
        None,
    ),
    (
        "3.0/pipeline-components/fetchers/googledrivefetcher.mdx#GoogleDriveFetcher/Overview/Error handling and concurrency#3",
        "error_or_task",
        "HTTP 429 rate limit errors when downloading many Google Drive files",
        None,
    ),
    (
        "3.0/pipeline-components/generators/amazonbedrockchatgenerator.mdx#AmazonBedrockChatGenerator/Overview/Prompt Caching/Caching tools#6",
        "paraphrase",
        "reuse cached tool definitions on Bedrock to cut token costs",
        None,
    ),
    (
        "3.0/pipeline-components/generators/fallbackchatgenerator.mdx#FallbackChatGenerator/Error Handling#6",
        "error_or_task",
        "RuntimeError when the primary and every backup chat model fail",
        None,
    ),
    (
        "3.0/pipeline-components/generators/guides-to-generators/choosing-the-right-generator.mdx#Choosing the Right Generator/Streaming Support/Sync and Async Callbacks#2",
        "error_or_task",
        "warning that a synchronous streaming callback was passed to run_async",
        None,
    ),
    (
        "3.0/pipeline-components/generators/guides-to-generators/choosing-the-right-generator.mdx#Choosing the Right Generator/Where the Model runs/Provider-hosted APIs/Multi-model Gateways#11",
        "paraphrase",
        "one API that gives access to models from many different vendors",
        "3.0",
    ),
    (
        "3.0/pipeline-components/generators/llamacppchatgenerator.mdx#LlamaCppChatGenerator/Installation/Using a different compute backend#4",
        "error_or_task",
        "build llama.cpp with CUDA cuBLAS for GPU inference",
        None,
    ),
    (
        "3.0/pipeline-components/generators/mockchatgenerator.mdx#MockChatGenerator/Usage/Driving an Agent#3",
        "paraphrase",
        "test an agent loop without a real LLM by scripting its replies and tool calls",
        None,
    ),
    (
        "3.0/pipeline-components/query/queryexpander.mdx#QueryExpander/Overview/Custom Prompt Template#2",
        "heading",
        "QueryExpander custom prompt template",
        None,
    ),
    (
        "3.0/pipeline-components/evaluators/deepevalevaluator.mdx#DeepEvalEvaluator/Supported Metrics#1",
        "heading",
        "metrics supported by DeepEvalEvaluator",
        "3.0",
    ),
    (
        "3.0/pipeline-components/connectors/oauthtokenresolver.mdx#OAuthTokenResolver/Overview/Token sources#2",
        "paraphrase",
        "exchange each user's incoming assertion for a downstream access token",
        None,
    ),
    (
        "3.0/development/logging.mdx#Logging/Structured Logging/JSON Rendering#9",
        "paraphrase",
        "make Haystack logs machine readable in production",
        None,
    ),
    (
        "3.0/development/tracing.mdx#Tracing/Content Tracing#3",
        "paraphrase",
        "record component inputs and outputs in my traces",
        None,
    ),
    (
        "3.0/development/hayhooks.mdx#Hayhooks/OpenAI Compatibility#11",
        "paraphrase",
        "serve a pipeline behind a chat completions endpoint so chat UIs can call it",
        None,
    ),
    (
        "3.0/development/hayhooks.mdx#Hayhooks/File Uploads#8",
        "error_or_task",
        "accept multipart/form-data uploads in the run_api method of a pipeline wrapper",
        "3.0",
    ),
    (
        "3.0/optimization/advanced-rag-techniques/hypothetical-document-embeddings-hyde.mdx#Hypothetical Document Embeddings (HyDE)/When Is It Helpful?#2",
        "heading",
        "when is HyDE helpful",
        None,
    ),
    (
        "3.0/optimization/evaluation/model-based-evaluation.mdx#Model-Based Evaluation/What is Model-Based Evaluation/Using Small Cross-Encoder Models for Evaluation#4",
        "paraphrase",
        "evaluate answers with a small local model instead of an LLM API",
        None,
    ),
    (
        "3.0/overview/telemetry.mdx#Telemetry/How Can I Opt Out?/On Windows#7",
        "error_or_task",
        "turn off anonymous usage statistics on Windows",
        None,
    ),
    (
        "3.0/overview/migration.mdx#Migration Guide/Behavior Changes/Auto-generated `Document.id` changes for documents with non-empty `meta`#16",
        "error_or_task",
        "document IDs are different after upgrading, so stored documents no longer match",
        "3.0",
    ),
    (
        "3.0/overview/migration.mdx#Migration Guide/Pipeline Changes/`AsyncPipeline` merged into `Pipeline`#6",
        "error_or_task",
        "ImportError: cannot import name 'AsyncPipeline' from 'haystack'",
        "3.0",
    ),
    (
        "3.0/document-stores/faissdocumentstore.mdx#FAISSDocumentStore/Supported Retrievers/Fixing OpenMP Runtime Conflicts on macOS/Symptoms#5",
        "error_or_task",
        "OMP: Error #15: Initializing libomp.dylib, but found libomp.dylib already initialized",
        None,
    ),
    (
        "3.0/document-stores/astradocumentstore.mdx#AstraDocumentStore/Initialization/Indexing Warnings#3",
        "error_or_task",
        "warning: collection is detected as having indexing turned on for all fields",
        None,
    ),
    (
        "3.0/document-stores/weaviatedocumentstore.mdx#WeaviateDocumentStore/Initialization/Weaviate Embedded#2",
        "paraphrase",
        "run a temporary Weaviate instance inside my Python process without a server",
        None,
    ),
    (
        "3.0/document-stores/oracledocumentstore.mdx#OracleDocumentStore/Initialization/HNSW Vector Index#5",
        "heading",
        "OracleDocumentStore HNSW vector index",
        None,
    ),
    (
        "3.0/memory-stores/cogneememorystore.mdx#CogneeMemoryStore/Usage/Session tier vs permanent graph#5",
        "heading",
        "Cognee session tier versus permanent graph",
        None,
    ),
    # version 2.31
    (
        "2.31/concepts/pipelines/asyncpipeline.mdx#AsyncPipeline/Key Features/Concurrency Control#6",
        "paraphrase",
        "cap how many components may execute at the same time",
        None,
    ),
    (
        "2.31/concepts/pipelines/pipeline-breakpoints.mdx#Pipeline Breakpoints/Setting a Breakpoint on an Agent/Resuming Agent Execution#7",
        "heading",
        "resuming agent execution from a breakpoint",
        None,
    ),
    (
        "2.31/development/tracing.mdx#Tracing/Disabling Auto Tracing#2",
        "heading",
        "disabling auto tracing",
        "2.31",
    ),
    (
        "2.31/pipeline-components/generators/huggingfaceapigenerator.mdx#HuggingFaceAPIGenerator/Usage/On its own/Using Self-Hosted Text Generation Inference (TGI)#4",
        "heading",
        "HuggingFaceAPIGenerator with self-hosted Text Generation Inference",
        None,
    ),
    (
        "2.31/pipeline-components/tools/toolinvoker.mdx#ToolInvoker#0",
        "paraphrase",
        "component that executes the function calls a chat model asked for",
        "2.31",
    ),
    (
        "2.31/pipeline-components/agents-1/state.mdx#State/Schema Definition#5",
        "paraphrase",
        "what keys does each entry of an agent state schema take",
        "2.31",
    ),
    (
        "2.31/pipeline-components/generators/guides-to-generators/function-calling.mdx#Function Calling/Example/2. Let the LLM Pick the Tool#4",
        "paraphrase",
        "pass a tool to OpenAIChatGenerator and read the tool call it decides to make",
        "2.31",
    ),
    (
        "2.31/pipeline-components/generators/huggingfacelocalchatgenerator.mdx#HuggingFaceLocalChatGenerator#0",
        "error_or_task",
        "HuggingFaceLocalChatGenerator is deprecated: what replaces it",
        None,
    ),
    (
        "2.31/tools/toolset.mdx#Toolset/Usage/With ChatGenerator and ToolInvoker#6",
        "heading",
        "Toolset with a ChatGenerator and ToolInvoker",
        "2.31",
    ),
    (
        "2.31/development/deployment/kubernetes.mdx#Kubernetes/Auto-Run Pipelines at Pod Start#3",
        "paraphrase",
        "have each Kubernetes pod serve my pipelines as soon as it starts",
        None,
    ),
    # version 2.25
    (
        "2.25/concepts/experimental-package.mdx#Experimental Package/Installation/Lifecycle#2",
        "heading",
        "haystack-experimental feature lifecycle",
        None,
    ),
    (
        "2.25/development/hayhooks.mdx#Hayhooks/Configuration/CORS Settings#6",
        "paraphrase",
        "allow a browser app on another origin to call my Hayhooks server",
        None,
    ),
    (
        "2.25/overview/migration.mdx#Migration Guide/Major Changes/PromptNode#7",
        "error_or_task",
        "what replaces PromptNode from Haystack 1.x",
        None,
    ),
    (
        "2.25/pipeline-components/extractors/namedentityextractor.mdx#NamedEntityExtractor/Usage/Get stored annotations#3",
        "heading",
        "NamedEntityExtractor get_stored_annotations",
        None,
    ),
    (
        "2.25/pipeline-components/generators/guides-to-generators/generators-vs-chat-generators.mdx#Generators vs Chat Generators/Different Types of Language Models/Supervised Fine Tuning (SFT) and Alignment with Human Preferences/Instruct vs Chat Language Models#10",
        "paraphrase",
        "should I use a chat generator or a plain text generator for an instruction-tuned model",
        None,
    ),
    (
        "2.25/pipeline-components/agents-1/agent.mdx#Agent/Overview/Agents as Tools#3",
        "paraphrase",
        "use one agent as a tool of a coordinator agent and pass back only its final reply",
        "2.25",
    ),
    (
        "2.25/concepts/agents/state.mdx#State/Overview/Automatic Message Handling#3",
        "paraphrase",
        "do I need to declare the messages field in my agent state schema",
        "2.25",
    ),
    (
        "2.25/development/hayhooks.mdx#Hayhooks/MCP Support/Skipping MCP Tool Listing#17",
        "paraphrase",
        "deploy a Hayhooks pipeline without exposing it to MCP clients",
        None,
    ),
    (
        "2.25/overview/migration.mdx#Migration Guide/Major Changes/Document Stores#5",
        "paraphrase",
        "in 1.x the document store was a pipeline node; how do I write documents in 2.x",
        None,
    ),
    (
        "2.25/pipeline-components/evaluators/ragasevaluator.mdx#RagasEvaluator/Usage/Examples/Evaluate Context Relevance and Aspect Critique#5",
        "error_or_task",
        "evaluate whether answers are problematic for children with a custom Ragas aspect",
        "2.25",
    ),
    (
        "2.25/pipeline-components/generators/guides-to-generators/generators-vs-chat-generators.mdx#Generators vs Chat Generators/Pick the Right Class/No Corresponding Chat Generator/Chat (Prompt) Template#6",
        "paraphrase",
        "where do I find the prompt format an open model expects, for example in tokenizer_config.json",
        None,
    ),
    (
        "2.25/tools/tool.mdx#Tool/Usage/Executing Tool Calls#10",
        "error_or_task",
        "run the tool calls prepared by OpenAIChatGenerator with ToolInvoker",
        "2.25",
    ),
    (
        "2.25/pipeline-components/agents-1/human-in-the-loop.mdx#Human in the Loop/Policies/Custom policy#6",
        "paraphrase",
        "only ask the user to confirm a tool call when the email goes to an external domain",
        "2.25",
    ),
    (
        "2.25/pipeline-components/extractors/regextextextractor.mdx#RegexTextExtractor/Overview/Handling no matches#2",
        "error_or_task",
        "RegexTextExtractor returns an empty dict when nothing matches",
        "2.25",
    ),
    (
        "2.25/pipeline-components/readers/extractivereader.mdx#ExtractiveReader/Overview/Models#2",
        "paraphrase",
        "which roberta squad2 models work for extractive question answering",
        "2.25",
    ),
    # version 2.18
    (
        "2.18/concepts/pipelines/pipeline-templates.mdx#Pipeline Templates/Chat with website#1",
        "paraphrase",
        "predefined pipeline that answers questions about a web page",
        "2.18",
    ),
    (
        "2.18/development/tracing.mdx#Tracing/Configuring a Tracing Backend/Custom Tracing Backend#7",
        "heading",
        "custom tracing backend",
        "2.18",
    ),
    (
        "2.18/overview/migration.mdx#Migration Guide/Migrating Components/Routing#15",
        "paraphrase",
        "what is the 2.x equivalent of the 1.x QueryClassifier and RouteDocuments",
        None,
    ),
    (
        "2.18/pipeline-components/generators/dalleimagegenerator.mdx#DALLEImageGenerator#0",
        "paraphrase",
        "create pictures from a text prompt with OpenAI",
        "2.18",
    ),
    (
        "2.18/pipeline-components/routers/conditionalrouter.mdx#ConditionalRouter/Overview/Variables#2",
        "paraphrase",
        "make some inputs of a routing condition optional so the router does not wait for them",
        "2.18",
    ),
    (
        "2.18/pipeline-components/routers/conditionalrouter.mdx#ConditionalRouter/Overview/Unsafe behaviour#3",
        "error_or_task",
        "route ChatMessage or Document objects through ConditionalRouter instead of strings",
        "2.18",
    ),
    (
        "2.18/concepts/document-store/choosing-a-document-store.mdx#Choosing a Document Store/Introduction/Types of vector databases/Vector-capable SQL databases#7",
        "paraphrase",
        "relational databases with a vector extension: when are they worth it",
        None,
    ),
    (
        "2.18/pipeline-components/generators/huggingfaceapigenerator.mdx#HuggingFaceAPIGenerator/Usage/On its own/Using the Free Serverless Inference API (Not Recommended)#5",
        "error_or_task",
        "Hugging Face free inference API no longer supports text_generation models",
        None,
    ),
    (
        "2.18/pipeline-components/generators/guides-to-generators/choosing-the-right-generator.mdx#Choosing the Right Generator/Open Models/Shared Hosted Model vs Privately Hosted Model#9",
        "heading",
        "shared hosted vs privately hosted open models",
        None,
    ),
    (
        "2.18/concepts/components/custom-components.mdx#Creating Custom Components/Requirements#1",
        "heading",
        "requirements for custom components",
        "2.18",
    ),
    (
        "2.18/concepts/data-classes/chatmessage.mdx#ChatMessage/Working with a ChatMessage/from_user with TextContent and ImageContent#4",
        "paraphrase",
        "send an image URL together with a question in one user message",
        "2.18",
    ),
    (
        "2.18/overview/installation.mdx#Installation/Package Installation#1",
        "error_or_task",
        "farm-haystack and haystack-ai installed in the same environment break each other",
        None,
    ),
    (
        "2.18/concepts/pipelines/pipeline-breakpoints.mdx#Pipeline Breakpoints/Setting a Breakpoint on an Agent#4",
        "paraphrase",
        "pause an agent before it calls the LLM or before it executes a tool",
        "2.18",
    ),
    (
        "2.18/development/hayhooks.mdx#Hayhooks/Running Pipelines from the CLI/With File Uploads#13",
        "error_or_task",
        "upload a directory of PDFs when running a deployed pipeline from the command line",
        None,
    ),
    (
        "2.18/concepts/metadata-filtering.mdx#Metadata Filtering/Filtering Types/Logic/Nested Filter Example#5",
        "heading",
        "nested filter example",
        "2.18",
    ),
]

# Picked section id -> other sections that answer its query as well (score 1). Found by a word search over all
# sections and by reading them: the same content on another page (DuplicatePolicy, the 3.0 migration guide),
# a component's "Overview" next to its picked introduction, and older copies of a section that the ratio misses
# (a boilerplate note added in 3.0, a shorter code sample). Cross-version copies of these are added as well.
ALSO_RELEVANT: dict[str, list[str]] = {
    "3.0/concepts/data-classes/chatmessage.mdx#ChatMessage/Working with a ChatMessage/from_tool#8": [
        "2.18/concepts/data-classes/chatmessage.mdx#ChatMessage/Working with a ChatMessage/from_tool#7",
    ],
    "3.0/concepts/document-store.mdx#Document Store/DocumentStore Protocol/DuplicatePolicy#4": [
        "3.0/pipeline-components/writers/documentwriter.mdx#DocumentWriter/Overview/DuplicatePolicy#2",
    ],
    "3.0/concepts/metadata-filtering.mdx#Metadata Filtering/Filtering Types/Logic#4": [
        "3.0/concepts/metadata-filtering.mdx#Metadata Filtering/Filtering Types/Logic/Nested Filter Example#5",
    ],
    "3.0/concepts/pipelines/serialization.mdx#Serializing Pipelines/Deserialization Security/Allowing Custom Modules#4": [
        "3.0/overview/migration.mdx#Migration Guide/Pipeline Changes/Deserialization is gated by a module allowlist#7",
    ],
    "3.0/concepts/pipelines/smart-pipeline-connections.mdx#Smart Pipeline Connections/Implicit List Joining#1": [
        "2.25/concepts/pipelines/smart-pipeline-connections.mdx#Smart Pipeline Connections/Implicit List Joining#1",
    ],
    "3.0/pipeline-components/retrievers/weaviatehybridretriever.mdx#WeaviateHybridRetriever/Usage/Adjusting the Alpha Parameter#6": [
        "3.0/pipeline-components/retrievers/weaviatehybridretriever.mdx#WeaviateHybridRetriever/Overview#1",
    ],
    "2.31/concepts/pipelines/asyncpipeline.mdx#AsyncPipeline/Key Features/Concurrency Control#6": [
        "3.0/concepts/pipelines.mdx#Pipelines/Flexibility/Async Execution and Streaming#6",
    ],
    "3.0/concepts/pipelines/visualizing-pipelines.mdx#Visualizing Haystack Pipelines/Visualizing Locally#6": [
        "2.18/concepts/pipelines/visualizing-pipelines.mdx#Visualizing Pipelines/Visualizing Locally#6",
    ],
    "3.0/pipeline-components/agents-1/hooks.mdx#Hooks/Overview/State keys for hooks#3": [
        "3.0/overview/migration.mdx#Migration Guide/Agent Changes/Reserved `state_schema` keys#14",
    ],
    "3.0/tools/tool.mdx#Tool/Tool Initialization/Advanced Tool Configuration/Shaping Tool outputs with `outputs_to_string`#7": [
        "3.0/tools/tool.mdx#Tool/Tool Initialization/Advanced Tool Configuration#6",
    ],
    "3.0/tools/ready-made-tools/e2btoolset.mdx#E2BToolset#0": [
        "3.0/tools/ready-made-tools/e2btoolset.mdx#E2BToolset/Overview#1",
    ],
    "3.0/pipeline-components/preprocessors/csvdocumentcleaner.mdx#CSVDocumentCleaner/Overview/Cleaning Process#3": [
        "3.0/pipeline-components/preprocessors/csvdocumentcleaner.mdx#CSVDocumentCleaner/Overview#1",
    ],
    "3.0/pipeline-components/preprocessors/documentcleaner.mdx#DocumentCleaner#0": [
        "3.0/pipeline-components/preprocessors/documentcleaner.mdx#DocumentCleaner/Overview#1",
    ],
    "3.0/pipeline-components/rankers/lostinthemiddleranker.mdx#LostInTheMiddleRanker#0": [
        "3.0/pipeline-components/rankers/lostinthemiddleranker.mdx#LostInTheMiddleRanker/Overview#1",
        "2.18/pipeline-components/rankers/lostinthemiddleranker.mdx#LostInTheMiddleRanker#0",
    ],
    "3.0/pipeline-components/retrievers/sentencewindowretriever.mdx#SentenceWindowRetriever#0": [
        "3.0/pipeline-components/retrievers/sentencewindowretriever.mdx#SentenceWindowRetriever/Overview#1",
    ],
    "3.0/pipeline-components/validators/jsonschemavalidator.mdx#JsonSchemaValidator#0": [
        "3.0/pipeline-components/validators/jsonschemavalidator.mdx#JsonSchemaValidator/Overview#1",
    ],
    "3.0/pipeline-components/generators/llamacppchatgenerator.mdx#LlamaCppChatGenerator/Installation/Using a different compute backend#4": [
        "3.0/pipeline-components/generators/llamacppgenerator.mdx#LlamaCppGenerator/Installation/Using a different compute backend#3",
        "2.31/pipeline-components/generators/llamacppgenerator.mdx#LlamaCppGenerator/Installation/Using a different compute backend#3",
        "2.25/pipeline-components/generators/llamacppchatgenerator.mdx#LlamaCppChatGenerator/Installation/Using a different compute backend#4",
        "2.25/pipeline-components/generators/llamacppgenerator.mdx#LlamaCppGenerator/Installation/Using a different compute backend#3",
        "2.18/pipeline-components/generators/llamacppchatgenerator.mdx#LlamaCppChatGenerator/Installation/Using a different compute backend#3",
        "2.18/pipeline-components/generators/llamacppgenerator.mdx#LlamaCppGenerator/Installation/Using a different compute backend#3",
    ],
    "3.0/development/hayhooks.mdx#Hayhooks/OpenAI Compatibility#11": [
        "2.25/development/hayhooks.mdx#Hayhooks/OpenAI Compatibility#18",
    ],
    "2.31/pipeline-components/tools/toolinvoker.mdx#ToolInvoker#0": [
        "2.31/pipeline-components/tools/toolinvoker.mdx#ToolInvoker/Overview#1",
    ],
    "2.18/pipeline-components/generators/dalleimagegenerator.mdx#DALLEImageGenerator#0": [
        "2.18/pipeline-components/generators/dalleimagegenerator.mdx#DALLEImageGenerator/Overview#1",
    ],
    "2.18/concepts/document-store/choosing-a-document-store.mdx#Choosing a Document Store/Introduction/Types of vector databases/Vector-capable SQL databases#7": [
        "3.0/concepts/document-store/choosing-a-document-store.mdx#Choosing a Document Store/Relational Databases#7",
    ],
    "2.18/pipeline-components/generators/huggingfaceapigenerator.mdx#HuggingFaceAPIGenerator/Usage/On its own/Using the Free Serverless Inference API (Not Recommended)#5": [
        "2.18/pipeline-components/generators/huggingfaceapigenerator.mdx#HuggingFaceAPIGenerator/Overview#1",
    ],
    "2.18/overview/installation.mdx#Installation/Package Installation#1": [
        "2.18/overview/migration.mdx#Migration Guide/Major Changes/Package Name#2",
    ],
}


def normalize(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def load_sections(path: Path) -> dict[str, dict[str, Any]]:
    sections: dict[str, dict[str, Any]] = {}
    with path.open() as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                sections[record["_id"]] = record
    return sections


def same_section_elsewhere(section: dict[str, Any], sections: dict[str, dict[str, Any]]) -> list[str]:
    """Ids of the same page and heading path in the other versions whose text is near-identical."""
    found = []
    for other in sections.values():
        if (
            other["version"] != section["version"]
            and other["path"] == section["path"]
            and other["heading_path"] == section["heading_path"]
            and difflib.SequenceMatcher(None, section["text"], other["text"], autojunk=False).ratio() >= NEAR_IDENTICAL
        ):
            found.append(other["_id"])
    return sorted(found)


def check(sections: dict[str, dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    texts = Counter(normalize(query) for _, _, query, _ in QUERIES)
    problems += [f"'{t}' is listed twice" for t, n in texts.items() if n > 1]
    picked = Counter(section_id for section_id, _, _, _ in QUERIES)
    problems += [f"{s} is picked {n} times" for s, n in picked.items() if n > 1]
    problems += [f"ALSO_RELEVANT key {s} is not a picked section" for s in ALSO_RELEVANT if s not in picked]
    by_text: dict[tuple[str, str], list[str]] = {}
    for record in sections.values():
        by_text.setdefault((record["version"], normalize(record["text"])), []).append(record["_id"])
    for section_id, kind, query, version in QUERIES:
        section = sections.get(section_id)
        if section is None:
            problems.append(f"{section_id}: no such section")
            continue
        if kind not in KINDS:
            problems.append(f"{section_id}: unknown kind {kind}")
        if version is not None and version != section["version"]:
            problems.append(f"{section_id}: query fixes version {version}")
        if len(section["text"]) < MIN_TEXT:
            problems.append(f"{section_id}: text has {len(section['text'])} characters (< {MIN_TEXT})")
        if not section["heading_path"] or normalize(section["heading_path"][-1]) in GENERIC_HEADINGS:
            problems.append(f"{section_id}: heading is not specific")
        headings = {normalize(section["title"]), normalize(" ".join(section["heading_path"]))}
        headings |= {normalize(h) for h in section["heading_path"]}
        if kind == "paraphrase" and normalize(query) in headings:
            problems.append(f"'{query}' is a paraphrase but is the heading verbatim")
        also = ALSO_RELEVANT.get(section_id, [])
        for other_id in also:
            other = sections.get(other_id)
            if other is None:
                problems.append(f"{section_id}: ALSO_RELEVANT {other_id} is no section")
            elif version is not None and other["version"] != version:
                problems.append(f"{section_id}: ALSO_RELEVANT {other_id} is outside version {version}")
        # The same text on another page answers the query as well: it must be listed.
        twins = by_text[(section["version"], normalize(section["text"]))]
        missing = [t for t in twins if t != section_id and t not in also]
        if missing:
            problems.append(f"{section_id}: the same text is also in {missing}, not in ALSO_RELEVANT")
    return problems


def build(sections: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The query objects, with their judged sections (id -> score) under `_relevant`."""
    queries = []
    for number, (section_id, kind, query, version) in enumerate(QUERIES, start=1):
        relevant = {section_id: 2}
        also = ALSO_RELEVANT.get(section_id, [])
        if version is None:
            for other_id in [section_id, *also]:
                for copy_id in same_section_elsewhere(sections[other_id], sections):
                    relevant.setdefault(copy_id, 1)
        for other_id in also:
            relevant.setdefault(other_id, 1)
        arguments: dict[str, str] = {"query": query}
        if version is not None:
            arguments["version"] = version
        metadata = {"kind": kind, "arguments": arguments, "section": section_id}
        queries.append({"_id": f"d{number}", "text": query, "metadata": metadata, "_relevant": relevant})
    return queries


def summary(queries: list[dict[str, Any]], sections: dict[str, dict[str, Any]]) -> dict[str, Any]:
    picked = [sections[q["metadata"]["section"]] for q in queries]
    return {
        "queries": len(queries),
        "by_kind": dict(Counter(q["metadata"]["kind"] for q in queries)),
        "fix_a_version": sum("version" in q["metadata"]["arguments"] for q in queries),
        "picked_by_version": dict(sorted(Counter(s["version"] for s in picked).items())),
        "picked_by_area": dict(Counter(s["path"].split("/")[0] for s in picked).most_common()),
        "qrels": sum(len(q["_relevant"]) for q in queries),
        "qrels_score_1": sum(1 for q in queries for score in q["_relevant"].values() if score == 1),
        "queries_with_more_than_one_relevant": sum(len(q["_relevant"]) > 1 for q in queries),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=Path, default=DEFAULT_SECTIONS)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    sections = load_sections(args.sections)
    problems = check(sections)
    if problems:
        sys.exit("the judged set is not consistent:\n  " + "\n  ".join(problems))
    queries = build(sections)
    write_judged_queries(args.out, queries, {q["_id"]: q["_relevant"] for q in queries})
    print(json.dumps(summary(queries, sections), indent=1))


if __name__ == "__main__":
    main()
