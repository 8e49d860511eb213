"""Held-out recruiter skill requests for ``search_by_skills``.

Written on 2026-11-24 by a helper session, blind: the author did not open the
existing search_by_skills evaluation set (its queries, build script, README or
qrels), the skill vocabulary descriptions in ``configs/skills.yaml``, the
calibration script, or any skill-related test, and did not grep the repository
for skill descriptions. The only inputs were the list of the 41 skill names
(with CV counts), the tool's spec, and the resume file (used only to check that
the nonsense terms are absent). The requests were written from general
knowledge of how job posts and recruiter searches phrase requirements; none is
copied from CV wording.

Per skill there are two requests:

* ``descriptive``: describes the competence without the skill's name, an
  obvious alias/abbreviation of it, or any other of the 41 skill names
  (2-8 words; task-, job-post- or tool-category-style).
* ``contains_name``: names the skill inside a longer, realistic requirement.

``HELDOUT_NONSENSE`` holds requests for skills that no CV has, each with the
key terms that were checked (case-insensitive, whole word) to occur in no CV's
text or annotated_skills.
"""

HELDOUT: list[tuple[str, str, str]] = [
    ("AWS", "descriptive", "Amazon cloud services like EC2 and S3"),
    ("AWS", "contains_name", "AWS cloud migration and cost optimisation"),
    ("Agile", "descriptive", "iterative sprint-based delivery with daily stand-ups"),
    ("Agile", "contains_name", "experience working in Agile delivery teams"),
    ("Angular", "descriptive", "TypeScript single-page applications using RxJS observables"),
    ("Angular", "contains_name", "Angular front-end development with TypeScript"),
    ("Ansible", "descriptive", "agentless configuration management with YAML playbooks"),
    ("Ansible", "contains_name", "automating server provisioning with Ansible playbooks"),
    ("Azure", "descriptive", "Microsoft cloud platform administration"),
    ("Azure", "contains_name", "Azure cloud infrastructure and app services"),
    ("C#", "descriptive", "object-oriented programming on the .NET framework"),
    ("C#", "contains_name", "C# developer for .NET web applications"),
    ("C++", "descriptive", "object-oriented systems programming with STL templates"),
    ("C++", "contains_name", "strong C++ skills for embedded software"),
    ("CI/CD", "descriptive", "automated build, test and deployment pipelines"),
    ("CI/CD", "contains_name", "setting up CI/CD pipelines for microservices"),
    ("CSS", "descriptive", "responsive layouts with flexbox and media queries"),
    ("CSS", "contains_name", "pixel-perfect UI implementation with CSS"),
    ("Data Analysis", "descriptive", "crunching numbers to uncover business trends and insights"),
    ("Data Analysis", "contains_name", "Data Analysis and reporting for sales operations"),
    ("Deep Learning", "descriptive", "training convolutional and recurrent neural networks"),
    ("Deep Learning", "contains_name", "Deep Learning model development in PyTorch"),
    ("Django", "descriptive", "web backends using an MVT framework and ORM"),
    ("Django", "contains_name", "Django web application development"),
    ("Docker", "descriptive", "containerizing microservices and building container images"),
    ("Docker", "contains_name", "Docker containerization of backend services"),
    ("ETL", "descriptive", "warehouse data ingestion jobs in Informatica or SSIS"),
    ("ETL", "contains_name", "ETL pipeline development for the data warehouse"),
    ("Excel", "descriptive", "spreadsheet skills: pivot tables, VLOOKUP, macros"),
    ("Excel", "contains_name", "advanced Excel reporting and financial modelling"),
    ("GCP", "descriptive", "deploying workloads on BigQuery and Compute Engine"),
    ("GCP", "contains_name", "GCP data platform engineering"),
    ("Git", "descriptive", "source code version control with branching and merging"),
    ("Git", "contains_name", "Git workflows and code review practices"),
    ("HTML", "descriptive", "semantic page markup and accessible web forms"),
    ("HTML", "contains_name", "hand-coding HTML for email templates and landing pages"),
    ("Hadoop", "descriptive", "big data batch processing with MapReduce and Hive"),
    ("Hadoop", "contains_name", "Hadoop ecosystem administration and tuning"),
    ("JUnit", "descriptive", "JVM unit tests with Mockito mocks"),
    ("JUnit", "contains_name", "JUnit test coverage for service layers"),
    ("Java", "descriptive", "backend services built with Hibernate and Maven"),
    ("Java", "contains_name", "core Java and multithreading for backend services"),
    ("JavaScript", "descriptive", "client-side scripting for interactive browser pages"),
    ("JavaScript", "contains_name", "JavaScript front-end scripting and DOM manipulation"),
    ("Jenkins", "descriptive", "Groovy pipeline scripts on a build automation server"),
    ("Jenkins", "contains_name", "Jenkins build job configuration and maintenance"),
    ("Linux", "descriptive", "Red Hat and Ubuntu server administration"),
    ("Linux", "contains_name", "Linux system administration and shell scripting"),
    ("Machine Learning", "descriptive", "training predictive models, regression and classification"),
    ("Machine Learning", "contains_name", "applied Machine Learning for customer churn prediction"),
    ("MongoDB", "descriptive", "schemaless document database with JSON collections"),
    ("MongoDB", "contains_name", "MongoDB schema design and aggregation pipelines"),
    ("MySQL", "descriptive", "open-source relational database administration, InnoDB tuning"),
    ("MySQL", "contains_name", "MySQL database design and query optimisation"),
    (
        "Natural Language Processing",
        "descriptive",
        "text classification, named entity recognition, sentiment analysis",
    ),
    (
        "Natural Language Processing",
        "contains_name",
        "Natural Language Processing for chatbot development",
    ),
    ("Oracle Database", "descriptive", "RMAN backups and Data Guard standby setup"),
    ("Oracle Database", "contains_name", "Oracle Database administration and performance tuning"),
    ("Power BI", "descriptive", "Microsoft dashboarding with DAX measures"),
    ("Power BI", "contains_name", "Power BI dashboard development for finance"),
    ("Python", "descriptive", "automation scripts using pandas and NumPy"),
    ("Python", "contains_name", "Python backend development and scripting"),
    ("REST APIs", "descriptive", "designing HTTP JSON web service endpoints"),
    ("REST APIs", "contains_name", "building REST APIs for mobile apps"),
    ("Redis", "descriptive", "in-memory key-value caching layer"),
    ("Redis", "contains_name", "Redis caching and session storage"),
    ("SAP", "descriptive", "ERP finance and logistics module consulting"),
    ("SAP", "contains_name", "SAP implementation and support experience"),
    ("SQL", "descriptive", "writing complex queries, joins and stored procedures"),
    ("SQL", "contains_name", "advanced SQL querying for reporting"),
    ("Salesforce", "descriptive", "CRM platform administration and custom workflows"),
    ("Salesforce", "contains_name", "Salesforce CRM administration and customisation"),
    ("Scala", "descriptive", "functional programming on the JVM with Akka"),
    ("Scala", "contains_name", "Scala functional programming for backend services"),
    ("Selenium", "descriptive", "automating browser UI regression tests"),
    ("Selenium", "contains_name", "Selenium test automation for web applications"),
    ("Spark", "descriptive", "distributed big data processing with RDDs"),
    ("Spark", "contains_name", "Apache Spark data pipelines at scale"),
    ("Spring", "descriptive", "enterprise dependency injection framework for microservices"),
    ("Spring", "contains_name", "Spring Boot microservices development"),
    ("Tableau", "descriptive", "interactive visual storytelling workbooks and dashboards"),
    ("Tableau", "contains_name", "Tableau dashboards for executive reporting"),
]

HELDOUT_NONSENSE: list[tuple[str, tuple[str, ...]]] = [
    ("Elixir backend services on Erlang OTP", ("Elixir", "Erlang")),
    ("Haskell type-level functional programming", ("Haskell",)),
    ("Solidity smart contracts for DeFi", ("Solidity", "smart contracts")),
    ("Svelte front-end components", ("Svelte",)),
    ("artisan sourdough bread baking", ("sourdough", "baking", "bread")),
    ("commercial beekeeping and honey harvesting", ("beekeeping", "honey")),
    ("sommelier with wine pairing expertise", ("sommelier", "wine")),
    ("violin making and repair as a luthier", ("violin", "luthier")),
]
