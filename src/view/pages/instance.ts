import { html, type SafeHtml } from "../../report/safeHtml.js";
import type { AnswerDetail } from "../../store/viewQueries.js";
import { NotFound, type PageContext, type PageResult } from "../context.js";
import { failingCall } from "../failure.js";
import { verdictBadge, viewerPage } from "../layout.js";
import { paramsText } from "../params.js";
import { instanceUrl, runsUrl, runUrl, templateUrl } from "../urls.js";

/**
 * `/run/:id/config/:c/template/:t/instance/:i`: one instance under one configuration: its parameters
 * and question, then every round: the prompt as sent, the full response, the code taken from it, the
 * verdict with its detail (and the failing input, expected and actual value where the detail has them),
 * the seed and the decoding settings. Everything the model wrote is shown as text.
 */
export function instancePage(ctx: PageContext): PageResult {
    const [runId, configParam, template, indexParam] = ctx.params as [string, string, string, string];
    const run = ctx.store.getRun(runId);
    if (!run) throw new NotFound(`no run '${runId}'`);
    const conf = ctx.store.view.configuration(Number(configParam));
    if (!conf || conf.runId !== run.id) throw new NotFound(`no configuration ${configParam} in run ${run.id}`);
    const index = Number(indexParam);
    const inst = Number.isInteger(index) ? ctx.store.view.instance(run.id, template, index) : undefined;
    if (!inst) throw new NotFound(`no instance ${indexParam} of '${template}' in run ${run.id}`);
    const answers = ctx.store.view.instanceAnswers(conf.id, template, index);
    const others = ctx.store.view.configurations(run.id).filter((c) => c.id !== conf.id);
    const parts: SafeHtml[] = [
        html`<section id="instance"><h2>${template} #${index} <small>${conf.label}</small></h2><dl class="kv"><dt>parameters</dt><dd class="params">${paramsText(inst.bindings, inst.params)}</dd><dt>model</dt><dd>${conf.model}</dd><dt>quantisation</dt><dd>${conf.quantization ?? "–"}</dd><dt>temperature</dt><dd>${conf.temperature}</dd><dt>wrapper</dt><dd>${conf.wrapper}</dd><dt>decoding</dt><dd>${JSON.stringify(conf.decoding)}</dd></dl>
<h3>Question</h3><pre class="prompt question">${inst.question}</pre>
<p>rounds: ${answers.map((a) => html`<a href="#round-${a.round}">${a.round}</a> ${verdictBadge(a.category, a.missing)} `)}${answers.length === 0 ? "no answer yet" : ""}</p>
${others.length ? html`<p>same instance under: ${others.map((c) => html`<a href="${instanceUrl(run.id, c.id, template, index)}">${c.label}</a> `)}</p>` : ""}</section>`
    ];
    // The first round's prompt is shown open (rounds usually share it); the others one click away.
    answers.forEach((a, i) => parts.push(round(a, i === 0)));
    return { html: viewerPage(`${template} #${index}`, [["runs", runsUrl()], [run.id, runUrl(run.id)], [template, templateUrl(run.id, template)], [`#${index} · ${conf.label}`]], parts) };
}

function round(a: AnswerDetail, promptOpen: boolean): SafeHtml {
    const call = a.category && a.category !== "passed" ? failingCall(a.detail) : undefined;
    const messages = Array.isArray(a.prompt) ? (a.prompt as { role?: unknown; content?: unknown }[]) : [];
    return html`<section class="round" id="round-${a.round}" data-answer="${a.id}"><h2>Round ${a.round} ${verdictBadge(a.category, a.missing)}</h2>
<dl class="kv"><dt>verdict</dt><dd class="category">${a.missing ? "missing (no answer in the replay file)" : (a.category ?? "not judged yet")}${a.judgeCategory && a.judgeCategory !== a.category ? ` (the judge said ${a.judgeCategory})` : ""}</dd><dt>seed</dt><dd>${a.seed}</dd><dt>stop</dt><dd>${a.stopReason}</dd><dt>tokens</dt><dd>${a.promptTokens} prompt, ${a.generatedTokens} generated, ${Math.round(a.genMs)} ms${a.cached ? " (from the response cache)" : ""}</dd></dl>
${a.detail ? html`<h3>Detail</h3><pre class="detail">${a.detail}</pre>` : ""}
${call ? html`<h3>Failing input</h3><dl class="kv failing"><dt>test</dt><dd>${call.label}</dd><dt>input</dt><dd class="input">${call.input}</dd><dt>expected</dt><dd class="expected">${call.expected}</dd><dt>got</dt><dd class="got">${call.got}</dd></dl>` : ""}
${a.shrunk && a.shrunk.steps === 0 ? html`<h3>Smallest failing input</h3><p class="note shrunk">The failing input above is already the smallest: no input the template could draw with fewer or smaller draws made the answer and the model solution differ (${a.shrunk.tried} tried).</p>` : ""}
${a.shrunk && a.shrunk.steps > 0 ? html`<h3>Smallest failing input</h3><p class="note">The failing input shrunk: drawn again by the template's own generator with fewer and smaller draws (so still a question the template could ask), and run in the sandbox, until no smaller input made the answer and the model solution differ (${a.shrunk.tried} inputs tried, ${a.shrunk.steps} smaller). The verdict is the one above.</p><dl class="kv failing shrunk"><dt>input</dt><dd class="input">${a.shrunk.call}</dd><dt>expected</dt><dd class="expected">${a.shrunk.expected}</dd><dt>got</dt><dd class="got">${a.shrunk.actual}</dd><dt>shrunk from</dt><dd class="from">${a.shrunk.from}</dd></dl>` : ""}
<h3>Extracted code</h3>${a.code === null ? html`<p class="muted">no code extracted</p>` : html`<pre class="code">${a.code}</pre>`}
<h3>Response</h3><pre class="response">${a.response}</pre>
<details class="more prompt"${promptOpen ? html` open` : ""}><summary>prompt as sent (${messages.length || "raw"} message${messages.length === 1 ? "" : "s"})</summary>${
        messages.length
            ? messages.map((m) => html`<p class="muted">${String(m.role ?? "?")}</p><pre class="prompt">${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}</pre>`)
            : html`<pre class="prompt">${JSON.stringify(a.prompt)}</pre>`
    }</details></section>`;
}
