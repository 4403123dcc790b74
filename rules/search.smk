rule search:
    input:
        root="resources/corpora/{corpus}",
        files="results/{corpus}/files.tsv",
        queries="results/{corpus}/{track}/queries.tsv",
        qrels="results/{corpus}/{track}/qrels.txt",
        tools="results/tools.json",
        index=tool_index,
    output:
        run="results/{corpus}/{track}/runs/{tool}.run",
        raw="results/{corpus}/{track}/raw/{tool}.jsonl",
    params:
        spec=lambda wildcards: config["tools"][wildcards.tool],
        timeout=config["timeout_seconds"],
        word_match=config["word_match"],
        code=code_hash("search"),
    log:
        "results/logs/{corpus}/{track}/search.{tool}.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/search.py"
