"""The skills job postings ask for: tools, languages, platforms, and the other names they go by.

Written from general knowledge of what postings ask for. The draft checks read a claimed skill
with it; fit reads the skills a listing asks for that a profile does not list.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Tools, languages and platforms job postings ask for, in lower case.
SKILL_NAMES = _words(
    """
    python java javascript typescript go golang rust ruby php perl scala kotlin swift
    objective-c c c++ c# csharp .net dotnet elixir erlang haskell clojure f# ocaml r matlab julia
    dart lua groovy bash shell powershell solidity cobol fortran sql plsql t-sql graphql
    react angular vue svelte next.js nextjs nuxt ember jquery redux node node.js nodejs deno express
    django flask fastapi rails spring laravel symfony phoenix gin asp.net
    swiftui uikit flutter xamarin
    postgresql postgres mysql mariadb sqlite oracle mongodb cassandra dynamodb redis memcached
    elasticsearch opensearch solr neo4j couchdb cockroachdb timescaledb clickhouse snowflake
    bigquery redshift databricks teradata vertica duckdb influxdb
    kafka rabbitmq activemq pulsar kinesis nats mqtt zeromq sqs sns pubsub
    aws azure gcp heroku digitalocean vercel netlify cloudflare openstack
    docker kubernetes k8s helm terraform pulumi ansible chef puppet vagrant packer nomad consul
    vault istio linkerd envoy nginx apache haproxy traefik openshift rancher eks gke aks ecs
    fargate lambda serverless cloudformation cdk argo argocd flux jenkins circleci travis
    gitlab github bamboo teamcity buildkite spinnaker
    prometheus grafana datadog splunk elk kibana logstash jaeger zipkin opentelemetry
    sentry pagerduty honeycomb loki tempo
    spark hadoop hive flink beam airflow dagster prefect luigi dbt fivetran stitch airbyte
    kafka-streams presto trino
    pandas numpy scipy scikit-learn sklearn pytorch tensorflow keras jax xgboost lightgbm catboost
    statsmodels pymc stan prophet transformers langchain llamaindex spacy nltk
    opencv mlflow kubeflow sagemaker vertex
    tableau looker powerbi qlik metabase superset mode excel sheets spss sas stata alteryx
    figma sketch invision framer zeplin miro mural photoshop illustrator indesign
    premiere principle protopie axure balsamiq webflow storybook
    jira confluence notion asana trello linear salesforce hubspot sap workday servicenow zendesk
    grpc protobuf thrift websockets oauth saml openid kerberos ldap
    linux unix windows macos ios android
    selenium cypress playwright jest mocha pytest junit
    hl7 fhir dicom snomed epic cerner
    webpack vite babel sass less tailwind bootstrap
    scorm xapi moodle articulate storyline captivate camtasia h5p lms canvas blackboard
    bitrise fastlane firebase crashlytics retrofit dagger hilt room coroutines jetpack gradle
    solidworks catia creo ansys autocad inventor fusion nx abaqus comsol matlab simulink
    anaplan netsuite hyperion quickbooks xero sage oracle adaptive workiva blackline
    kinaxis manhattan wms erp mrp crm
    """
) | frozenset({"new relic", "power bi", "google cloud", "hugging face", "react native", "github actions",
               "after effects", "adobe xd", "jetpack compose", "google analytics"})  # fmt: skip

# Skills that are also English words or names ("go", "spark", "excel", "julia"): one counts as a
# skill only when a text writes it with a capital letter.
AMBIGUOUS_SKILLS = _words(
    """
    go r c rust swift spark flask express beam mode linear stan chef puppet vault flux argo excel
    sheets lambda sketch principle framer notion compose epic less sass jest tempo loki consul
    nomad envoy luigi ember gin prophet vertex stitch mural actions shell oracle sas node next
    react vue julia dart lua elk hive presto mocha babel bootstrap tailwind webflow storybook
    linux windows android solr dagster prefect fivetran airbyte trino phoenix spring rails
    """
)


# Other names of one skill, both ways.
SKILL_SYNONYMS = {
    "go": "golang", "golang": "go", "postgres": "postgresql", "postgresql": "postgres",
    "k8s": "kubernetes", "kubernetes": "k8s", "js": "javascript", "javascript": "js",
    "ts": "typescript", "typescript": "ts", "powerbi": "power bi", "power bi": "powerbi",
    "sklearn": "scikit-learn", "scikit-learn": "sklearn", "node": "node.js", "node.js": "node",
    "gcp": "google cloud platform", "google cloud platform": "gcp", "google cloud": "gcp",
    "aws": "amazon web services", "amazon web services": "aws", "azure": "microsoft azure",
    "microsoft azure": "azure", "excel": "microsoft excel", "microsoft excel": "excel",
    "solidworks": "solid works", "ms sql": "sql server", "sql server": "ms sql",
}  # fmt: skip
