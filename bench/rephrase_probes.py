"""Our own probe set for the rephrasing validator: role swaps and faithful rewordings.

Written before the role rules of ``quizbot.generate.rephrase.relational`` (issue 24), in
the 16 PretexEval relations and their prototypes (``prompts_pretex.csv``): every role swap keeps
both entities and the predicate family and changes only who plays which role (relational nouns,
voice with by-phrases, genitives, patient frames, relative clauses, "associated with ... as its
cause"); every faithful rewording is what an LLM at temperature writes. None is taken from the
PretexEval files. Usage:

    .venv/bin/python bench/rephrase_probes.py [--show]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quizbot.generate.rephrase import negation_cues, validate_rephrasing  # noqa: E402

# (head, tail, statement, [faithful...], [role swaps...])
Probe = tuple[str, str, str, list[str], list[str]]

PROBES: list[Probe] = [
    # associated_morphology_of
    (
        "Granuloma",
        "Sarcoidosis",
        "Granuloma is the associated morphology of Sarcoidosis.",
        [
            "Sarcoidosis is morphologically characterized by granuloma.",
            "The morphology associated with sarcoidosis is granuloma.",
            "Granuloma represents the characteristic morphology seen in sarcoidosis.",
            "Sarcoidosis has granuloma as its associated morphology.",
        ],
        [
            "Sarcoidosis is the associated morphology of granuloma.",
            "The morphology associated with granuloma is sarcoidosis.",
            "Granuloma has sarcoidosis as its associated morphology.",
            "Granuloma is morphologically characterized by sarcoidosis.",
        ],
    ),
    (
        "Granuloma",
        "Sarcoidosis",
        "Sarcoidosis is often accompanied by the morphology of Granuloma.",
        [
            "The morphology of granuloma often accompanies sarcoidosis.",
            "Granuloma is a morphology that often accompanies sarcoidosis.",
        ],
        [
            "Granuloma is often accompanied by the morphology of sarcoidosis.",
            "The morphology of sarcoidosis often accompanies granuloma.",
        ],
    ),
    (
        "Granuloma",
        "Sarcoidosis",
        "If a patient exhibits a morphological change of Granuloma, then he/she may suffer from"
        " Sarcoidosis.",
        ["A patient showing a morphological change of granuloma may have sarcoidosis."],
        [
            "If a patient exhibits a morphological change of sarcoidosis, then he/she may suffer"
            " from granuloma.",
            "A patient who suffers from granuloma may show a morphological change of sarcoidosis.",
        ],
    ),
    # disease_has_abnormal_cell
    (
        "Acute myeloid leukemia",
        "Myeloblast",
        "Acute myeloid leukemia has the abnormal cell Myeloblast.",
        [
            "Myeloblasts are abnormal cells found in acute myeloid leukemia.",
            "The abnormal cell myeloblast is present in acute myeloid leukemia.",
            "In acute myeloid leukemia, the myeloblast is an abnormal cell that is seen.",
        ],
        [
            "Myeloblast has the abnormal cell acute myeloid leukemia.",
            "Acute myeloid leukemia is an abnormal cell found in myeloblasts.",
            "The abnormal cell acute myeloid leukemia is detected within myeloblasts.",
        ],
    ),
    (
        "Acute myeloid leukemia",
        "Myeloblast",
        "The abnormal cell type Myeloblast is detected within Acute myeloid leukemia.",
        ["Acute myeloid leukemia contains the abnormal cell type myeloblast."],
        [
            "The abnormal cell type acute myeloid leukemia is detected within myeloblast.",
            "Myeloblast contains the abnormal cell type acute myeloid leukemia.",
        ],
    ),
    (
        "Acute myeloid leukemia",
        "Myeloblast",
        "If a patient has the abnormal cell Myeloblast, then he/she may suffer from Acute myeloid"
        " leukemia.",
        [
            "A patient with the abnormal cell myeloblast may be suffering from acute myeloid"
            " leukemia."
        ],
        [
            "If a patient has the abnormal cell acute myeloid leukemia, then he/she may suffer"
            " from myeloblast.",
        ],
    ),
    # disease_has_associated_anatomic_site
    (
        "Nephrolithiasis",
        "Kidney",
        "The disease Nephrolithiasis can stem from the associated anatomic site Kidney.",
        [
            "The kidney is the anatomic site from which nephrolithiasis can arise.",
            "Nephrolithiasis can arise from the kidney as its associated anatomic site.",
            "The disease nephrolithiasis can originate in the kidney, its associated anatomic"
            " site.",
        ],
        [
            "The disease kidney can stem from the associated anatomic site nephrolithiasis.",
            "Nephrolithiasis is the anatomic site from which the kidney can arise.",
            "The kidney can arise from nephrolithiasis as its associated anatomic site.",
        ],
    ),
    (
        "Nephrolithiasis",
        "Kidney",
        "Anatomical site Kidney is associated with the development of disease Nephrolithiasis.",
        [
            "The development of nephrolithiasis is associated with the kidney as an anatomical"
            " site.",
            "The kidney, an anatomical site, is linked to the development of nephrolithiasis.",
        ],
        [
            "Anatomical site nephrolithiasis is associated with the development of disease kidney.",
            "The development of the kidney is associated with nephrolithiasis as an anatomical"
            " site.",
            "Kidney development is associated with the anatomical site nephrolithiasis.",
        ],
    ),
    (
        "Nephrolithiasis",
        "Kidney",
        "If a patient suffers from Nephrolithiasis, then he/she has lesions in Kidney.",
        [
            "A patient with nephrolithiasis will have lesions in the kidney.",
            "Patients suffering from nephrolithiasis have lesions located in the kidney.",
        ],
        [
            "If a patient suffers from kidney, then he/she has lesions in nephrolithiasis.",
            "A patient with lesions in the kidney suffers from nephrolithiasis.",
        ],
    ),
    # disease_has_normal_cell_origin
    (
        "Hepatocellular carcinoma",
        "Hepatocyte",
        "The disease Hepatocellular carcinoma stems from the normal cell Hepatocyte.",
        [
            "Hepatocellular carcinoma originates from normal hepatocytes.",
            "The normal hepatocyte is the cell from which hepatocellular carcinoma arises.",
            "Hepatocytes are the normal cells of origin of hepatocellular carcinoma.",
        ],
        [
            "The disease hepatocyte stems from the normal cell hepatocellular carcinoma.",
            "Hepatocytes originate from hepatocellular carcinoma.",
            "Hepatocellular carcinoma is the normal cell from which hepatocytes arise.",
            "The normal cell of origin of hepatocytes is hepatocellular carcinoma.",
        ],
    ),
    (
        "Hepatocellular carcinoma",
        "Hepatocyte",
        "Normal cell Hepatocyte is associated with the development of disease Hepatocellular"
        " carcinoma.",
        ["The normal hepatocyte is associated with the development of hepatocellular carcinoma."],
        [
            "The normal cell hepatocellular carcinoma is associated with the development of the"
            " disease hepatocyte.",
            "The development of hepatocytes is associated with hepatocellular carcinoma.",
        ],
    ),
    # disease_has_normal_tissue_origin
    (
        "Osteosarcoma",
        "Bone tissue",
        "The disease Osteosarcoma stems from the normal tissue Bone tissue.",
        [
            "Osteosarcoma arises from normal bone tissue.",
            "Bone tissue is the normal tissue from which osteosarcoma originates.",
            "Osteosarcoma has its origin in normal bone tissue.",
        ],
        [
            "Bone tissue arises from the disease osteosarcoma.",
            "Osteosarcoma is the normal tissue from which bone tissue originates.",
            "The origin of bone tissue lies in osteosarcoma.",
        ],
    ),
    (
        "Osteosarcoma",
        "Bone tissue",
        "Normal tissue Bone tissue is associated with the development of disease Osteosarcoma.",
        ["The development of osteosarcoma is associated with normal bone tissue."],
        ["The development of bone tissue is associated with the disease osteosarcoma."],
    ),
    # disease_mapped_to_gene
    (
        "Cystic fibrosis",
        "CFTR",
        "The disease Cystic fibrosis is mapped to gene CFTR.",
        [
            "Cystic fibrosis has been mapped to the CFTR gene.",
            "The CFTR gene is the gene to which cystic fibrosis is mapped.",
            "Cystic fibrosis maps to the gene CFTR.",
        ],
        [
            "The disease CFTR is mapped to gene cystic fibrosis.",
            "CFTR is the disease mapped to the gene cystic fibrosis.",
        ],
    ),
    (
        "Cystic fibrosis",
        "CFTR",
        "Gene CFTR is associated with the disease Cystic fibrosis.",
        [
            "The disease cystic fibrosis is associated with the gene CFTR.",
            "The CFTR gene is linked to cystic fibrosis.",
        ],
        [
            "Gene cystic fibrosis is associated with the disease CFTR.",
            "The cystic fibrosis gene is linked to the disease CFTR.",
            "The disease CFTR is associated with the gene cystic fibrosis.",
        ],
    ),
    # disease_may_have_associated_disease
    (
        "Obesity",
        "Obstructive sleep apnea",
        "The disease Obesity might have the associated disease Obstructive sleep apnea.",
        [
            "Obstructive sleep apnea may be an associated disease of obesity.",
            "Obesity might have obstructive sleep apnea as an associated disease.",
        ],
        [
            "Obesity may be a complication of obstructive sleep apnea.",
        ],
    ),
    (
        "Obesity",
        "Obstructive sleep apnea",
        "If a patient suffers from Obesity, then the likelihood of he/she suffering from"
        " Obstructive sleep apnea is higher.",
        [
            "Patients with obesity have a higher likelihood of suffering from obstructive sleep"
            " apnea."
        ],
        [],
    ),
    # disease_may_have_finding
    (
        "Pneumonia",
        "Fever",
        "Pneumonia may have Fever.",
        [
            "Fever may be present in pneumonia.",
            "Pneumonia can present with fever.",
            "A fever may be seen in pneumonia.",
            "Pneumonia may have fever as one of its symptoms.",
            "Fever may be a symptom of pneumonia.",
        ],
        [
            "Fever may have pneumonia.",
            "Pneumonia may be present in fever.",
            "Fever can present with pneumonia.",
            "Fever may have pneumonia as one of its symptoms.",
            "Pneumonia may be a symptom of fever.",
            "Fever may be associated with pneumonia as its symptom.",
        ],
    ),
    (
        "Pneumonia",
        "Fever",
        "If a patient has Fever, then he/she may suffer from Pneumonia.",
        [
            "A patient who has a fever may be suffering from pneumonia.",
            "Fever in a patient may indicate pneumonia.",
        ],
        [
            "If a patient has pneumonia, then he/she may suffer from fever.",
            "A patient with pneumonia may be suffering from fever.",
        ],
    ),
    (
        "Pneumonia",
        "Fever",
        "A patient that suffers from Pneumonia does not have Fever.",
        [
            "Patients suffering from pneumonia do not have fever.",
            "A patient with pneumonia does not have a fever.",
        ],
        [
            "A patient that suffers from fever does not have pneumonia.",
            "A patient with fever does not have pneumonia.",
        ],
    ),
    # disease_may_have_molecular_abnormality
    (
        "Chronic myeloid leukemia",
        "BCR-ABL fusion",
        "The disease Chronic myeloid leukemia may have molecular abnormality BCR-ABL fusion.",
        [
            "Chronic myeloid leukemia may carry the molecular abnormality BCR-ABL fusion.",
            "The BCR-ABL fusion may be a molecular abnormality found in chronic myeloid leukemia.",
            "BCR-ABL fusion is a molecular abnormality that may occur in chronic myeloid leukemia.",
        ],
        [
            "The disease BCR-ABL fusion may have molecular abnormality chronic myeloid leukemia.",
            "Chronic myeloid leukemia may be a molecular abnormality found in BCR-ABL fusion.",
            "The molecular abnormality chronic myeloid leukemia may be found in the disease"
            " BCR-ABL fusion.",
        ],
    ),
    (
        "Chronic myeloid leukemia",
        "BCR-ABL fusion",
        "Molecular abnormality BCR-ABL fusion may be associated with the disease Chronic myeloid"
        " leukemia.",
        [
            "The disease chronic myeloid leukemia may be associated with the molecular"
            " abnormality BCR-ABL fusion.",
        ],
        [
            "Molecular abnormality chronic myeloid leukemia may be associated with the disease"
            " BCR-ABL fusion.",
            "The disease BCR-ABL fusion may be associated with the molecular abnormality chronic"
            " myeloid leukemia.",
        ],
    ),
    # gene_encodes_gene_product
    (
        "INS",
        "Insulin",
        "The gene INS encodes gene product Insulin.",
        [
            "Insulin is the gene product encoded by the INS gene.",
            "The INS gene codes for the protein insulin.",
            "Insulin is encoded by the gene INS.",
        ],
        [
            "The gene insulin encodes gene product INS.",
            "Insulin encodes the gene product INS.",
            "INS is encoded by the insulin gene.",
            "INS is the gene product encoded by the insulin gene.",
        ],
    ),
    (
        "INS",
        "Insulin",
        "The gene product Insulin is encoded by the gene INS.",
        ["The INS gene encodes the gene product insulin."],
        [
            "The gene product INS is encoded by the gene insulin.",
            "The insulin gene encodes the gene product INS.",
        ],
    ),
    (
        "INS",
        "Insulin",
        "If the expression level of INS decreases, it may lead to a reduction in the production or"
        " activity of Insulin.",
        [
            "A decrease in the expression level of INS may lead to reduced production or"
            " activity of insulin."
        ],
        [
            "If the expression level of insulin decreases, it may lead to a reduction in the"
            " production or activity of INS.",
        ],
    ),
    # gene_product_has_associated_anatomy
    (
        "Albumin",
        "Liver",
        "The gene product Albumin has the associated anatomy Liver.",
        [
            "The liver is the anatomy associated with the gene product albumin.",
            "The anatomy associated with the gene product albumin is the liver.",
            "The gene product albumin is associated with the liver as its anatomy.",
        ],
        [
            "The gene product liver has the associated anatomy albumin.",
            "The anatomy associated with the gene product liver is albumin.",
            "Albumin is the anatomy associated with the gene product liver.",
        ],
    ),
    (
        "Albumin",
        "Liver",
        "The gene product Albumin plays a role in anatomy Liver.",
        [
            "Albumin, as a gene product, plays a role in the liver.",
            "In the liver, the gene product albumin plays a role.",
        ],
        [
            "The gene product liver plays a role in anatomy albumin.",
            "The liver plays a role in the anatomy albumin.",
        ],
    ),
    (
        "Albumin",
        "Liver",
        "Anatomy Liver is where Albumin functions.",
        [
            "Albumin functions in the liver.",
            "The liver is the anatomical site where albumin functions.",
        ],
        [
            "Anatomy albumin is where liver functions.",
            "The liver functions in albumin.",
            "Albumin is where the liver functions.",
        ],
    ),
    # gene_product_has_biochemical_function
    (
        "Hexokinase",
        "Glucose phosphorylation",
        "Hexokinase has biochemical function Glucose phosphorylation.",
        [
            "Glucose phosphorylation is a biochemical function of hexokinase.",
            "Hexokinase performs the biochemical function of glucose phosphorylation.",
            "One biochemical function of hexokinase is glucose phosphorylation.",
        ],
        [
            "Glucose phosphorylation has biochemical function hexokinase.",
            "Hexokinase is a biochemical function of glucose phosphorylation.",
            "One biochemical function of glucose phosphorylation is hexokinase.",
        ],
    ),
    (
        "Hexokinase",
        "Glucose phosphorylation",
        "Glucose phosphorylation is not a biochemical function of Hexokinase.",
        ["Hexokinase does not have glucose phosphorylation as a biochemical function."],
        [
            "Hexokinase is not a biochemical function of glucose phosphorylation.",
            "Glucose phosphorylation does not have hexokinase as a biochemical function.",
        ],
    ),
    # gene_product_plays_role_in_biological_process
    (
        "Fibrinogen",
        "Blood coagulation",
        "The gene product Fibrinogen plays a role in biological process Blood coagulation.",
        [
            "Fibrinogen, a gene product, participates in the biological process of blood"
            " coagulation.",
            "The biological process of blood coagulation involves the gene product fibrinogen.",
            "Fibrinogen contributes to blood coagulation as a biological process.",
        ],
        [
            "The gene product blood coagulation plays a role in biological process fibrinogen.",
            "Blood coagulation plays a role in the biological process of fibrinogen.",
            "The biological process of fibrinogen involves blood coagulation.",
        ],
    ),
    (
        "Fibrinogen",
        "Blood coagulation",
        "Biological process Blood coagulation is associated with the gene product Fibrinogen.",
        [
            "The gene product fibrinogen is associated with the biological process of blood"
            " coagulation."
        ],
        [
            "Biological process fibrinogen is associated with the gene product blood coagulation.",
            "The gene product blood coagulation is associated with the biological process"
            " fibrinogen.",
        ],
    ),
    # has_physiologic_effect
    (
        "Furosemide",
        "Diuresis",
        "Furosemide has physiologic effect of Diuresis.",
        [
            "Diuresis is a physiologic effect of furosemide.",
            "Furosemide produces diuresis as a physiologic effect.",
            "One physiologic effect of furosemide is diuresis.",
        ],
        [
            "Diuresis has physiologic effect of furosemide.",
            "Furosemide is a physiologic effect of diuresis.",
            "One physiologic effect of diuresis is furosemide.",
            "Diuresis produces furosemide as a physiologic effect.",
        ],
    ),
    (
        "Furosemide",
        "Diuresis",
        "Diuresis can be caused by Furosemide.",
        [
            "Furosemide can cause diuresis.",
            "Furosemide can be a cause of diuresis.",
            "Diuresis can be a result of furosemide.",
            "Diuresis can be associated with furosemide as its cause.",
            "Furosemide is a drug which can cause diuresis.",
        ],
        [
            "Furosemide can be caused by diuresis.",
            "Diuresis can cause furosemide.",
            "Diuresis can be the cause of furosemide.",
            "Furosemide can be a result of diuresis.",
            "Furosemide can be associated with diuresis as its cause.",
            "Furosemide is something which diuresis can cause.",
        ],
    ),
    (
        "Furosemide",
        "Diuresis",
        "If a patient takes Furosemide, he/she may have physiologic effect of Diuresis.",
        ["A patient who takes furosemide may experience the physiologic effect of diuresis."],
        ["If a patient takes diuresis, he/she may have physiologic effect of furosemide."],
    ),
    # may_prevent
    (
        "Aspirin",
        "Myocardial infarction",
        "Aspirin may be able to prevent Myocardial infarction.",
        [
            "Myocardial infarction may be preventable with aspirin.",
            "Aspirin might help prevent myocardial infarction.",
            "Aspirin may have the ability to prevent myocardial infarction.",
        ],
        [
            "Myocardial infarction may be able to prevent aspirin.",
            "Aspirin may be preventable with myocardial infarction.",
            "Aspirin may be prevented by myocardial infarction.",
        ],
    ),
    (
        "Aspirin",
        "Myocardial infarction",
        "If a patient wishes to prevent Myocardial infarction, he/she should take Aspirin.",
        [
            "A patient who wants to prevent myocardial infarction should take aspirin.",
            "Patients wishing to prevent a myocardial infarction should take aspirin.",
        ],
        [
            "If a patient wishes to prevent aspirin, he/she should take myocardial infarction.",
            "A patient who wants to prevent aspirin should take myocardial infarction.",
        ],
    ),
    # may_treat
    (
        "Metformin",
        "Type 2 diabetes mellitus",
        "Metformin might treat Type 2 diabetes mellitus.",
        [
            "Type 2 diabetes mellitus might be treated with metformin.",
            "Metformin may be a treatment for type 2 diabetes mellitus.",
            "Metformin could be used to treat type 2 diabetes mellitus.",
            "Type 2 diabetes mellitus might be a condition for which metformin is given.",
        ],
        [
            "Type 2 diabetes mellitus might treat metformin.",
            "Metformin might be treated with type 2 diabetes mellitus.",
            "Type 2 diabetes mellitus may be a treatment for metformin.",
            "Metformin might be the condition for which type 2 diabetes mellitus is given.",
        ],
    ),
    (
        "Metformin",
        "Type 2 diabetes mellitus",
        "If a patient suffers from Type 2 diabetes mellitus, he/she should take Metformin.",
        [
            "Patients with type 2 diabetes mellitus should take metformin.",
            "A patient who has type 2 diabetes mellitus should be taking metformin.",
            "In patients with type 2 diabetes mellitus, metformin should be taken.",
        ],
        [
            "If a patient suffers from metformin, he/she should take type 2 diabetes mellitus.",
            "Patients with metformin should take type 2 diabetes mellitus.",
            "In patients with metformin, type 2 diabetes mellitus should be taken.",
        ],
    ),
    (
        "Metformin",
        "Type 2 diabetes mellitus",
        "Type 2 diabetes mellitus cannot be treated by Metformin.",
        [
            "Metformin is ineffective in the treatment of type 2 diabetes mellitus.",
            "Metformin cannot treat type 2 diabetes mellitus.",
        ],
        [
            "Metformin cannot be treated by type 2 diabetes mellitus.",
            "Type 2 diabetes mellitus is ineffective in the treatment of metformin.",
            "Type 2 diabetes mellitus cannot treat metformin.",
        ],
    ),
    # occurs_after
    (
        "Rheumatic fever",
        "Streptococcal pharyngitis",
        "Rheumatic fever occurs after Streptococcal pharyngitis.",
        [
            "Streptococcal pharyngitis precedes rheumatic fever.",
            "Rheumatic fever develops following streptococcal pharyngitis.",
            "Streptococcal pharyngitis is followed by rheumatic fever.",
        ],
        [
            "Streptococcal pharyngitis occurs after rheumatic fever.",
            "Rheumatic fever precedes streptococcal pharyngitis.",
            "Streptococcal pharyngitis develops following rheumatic fever.",
            "Rheumatic fever is followed by streptococcal pharyngitis.",
        ],
    ),
    (
        "Rheumatic fever",
        "Streptococcal pharyngitis",
        "Streptococcal pharyngitis may occur before Rheumatic fever.",
        ["Rheumatic fever may occur after streptococcal pharyngitis."],
        ["Rheumatic fever may occur before streptococcal pharyngitis."],
    ),
]

# A second set, written after the first rules and measured before any rule was tuned on it
# (main: 42/48 faithful, 41/48 swaps; with the first rules 45/48 and 44/48).
LATER: list[Probe] = [
    (
        "Squamous metaplasia",
        "Barrett esophagus",
        "Squamous metaplasia is the associated morphology of Barrett esophagus.",
        [
            "Barrett esophagus has squamous metaplasia as its associated morphology.",
            "The associated morphology of Barrett esophagus is squamous metaplasia.",
            "Barrett esophagus's associated morphology is squamous metaplasia.",
            "In Barrett esophagus, the associated morphology is squamous metaplasia.",
        ],
        [
            "Barrett esophagus is the associated morphology of squamous metaplasia.",
            "Squamous metaplasia's associated morphology is Barrett esophagus.",
            "In squamous metaplasia, the associated morphology is Barrett esophagus.",
            "Squamous metaplasia has Barrett esophagus as its associated morphology.",
        ],
    ),
    (
        "Multiple myeloma",
        "Plasma cell",
        "Multiple myeloma has the abnormal cell Plasma cell.",
        [
            "Abnormal plasma cells are found in multiple myeloma.",
            "Plasma cells are the abnormal cells detected in multiple myeloma.",
            "Multiple myeloma is characterized by abnormal plasma cells.",
        ],
        [
            "Abnormal multiple myeloma is found in plasma cells.",
            "Plasma cells are characterized by abnormal multiple myeloma.",
            "Plasma cell has the abnormal cell multiple myeloma.",
        ],
    ),
    (
        "Appendicitis",
        "Vermiform appendix",
        "The disease Appendicitis can stem from the associated anatomic site Vermiform appendix.",
        [
            "Appendicitis can originate in the vermiform appendix.",
            "The vermiform appendix is the anatomic site where appendicitis can arise.",
            "Appendicitis may arise from its associated anatomic site, the vermiform appendix.",
        ],
        [
            "The vermiform appendix can originate in appendicitis.",
            "Appendicitis is the anatomic site where the vermiform appendix can arise.",
            "The vermiform appendix can stem from the associated anatomic site appendicitis.",
        ],
    ),
    (
        "Glioblastoma",
        "Astrocyte",
        "The disease Glioblastoma stems from the normal cell Astrocyte.",
        [
            "Glioblastoma originates from normal astrocytes.",
            "Normal astrocytes give rise to glioblastoma.",
            "Astrocytes are the normal cells from which glioblastoma stems.",
        ],
        [
            "Astrocytes originate from glioblastoma.",
            "Glioblastoma gives rise to normal astrocytes.",
            "Glioblastoma is the normal cell from which astrocytes stem.",
        ],
    ),
    (
        "Huntington disease",
        "HTT",
        "The disease Huntington disease is mapped to gene HTT.",
        [
            "Huntington disease is mapped to the HTT gene.",
            "The HTT gene is the gene to which Huntington disease has been mapped.",
        ],
        [
            "The disease HTT is mapped to gene Huntington disease.",
            "The Huntington disease gene is mapped to the disease HTT.",
        ],
    ),
    (
        "Gout",
        "Hyperuricemia",
        "Gout may have Hyperuricemia.",
        [
            "Hyperuricemia may be found in gout.",
            "Gout may be accompanied by hyperuricemia.",
            "Gout may present with hyperuricemia.",
            "Patients with gout may have hyperuricemia.",
        ],
        [
            "Gout may be found in hyperuricemia.",
            "Hyperuricemia may be accompanied by gout.",
            "Hyperuricemia may present with gout.",
            "Patients with hyperuricemia may have gout.",
        ],
    ),
    (
        "Gout",
        "Hyperuricemia",
        "If a patient has Hyperuricemia, then he/she may suffer from Gout.",
        [
            "A patient with hyperuricemia may suffer from gout.",
            "Hyperuricemia in a patient may indicate gout.",
        ],
        [
            "A patient with gout may suffer from hyperuricemia.",
            "Gout in a patient may indicate hyperuricemia.",
        ],
    ),
    (
        "HBB",
        "Hemoglobin subunit beta",
        "The gene HBB encodes gene product Hemoglobin subunit beta.",
        [
            "Hemoglobin subunit beta is encoded by the HBB gene.",
            "The HBB gene codes for hemoglobin subunit beta.",
            "Hemoglobin subunit beta is the product encoded by HBB.",
        ],
        [
            "HBB is encoded by the hemoglobin subunit beta gene.",
            "The hemoglobin subunit beta gene codes for HBB.",
            "HBB is the product encoded by hemoglobin subunit beta.",
        ],
    ),
    (
        "Surfactant protein C",
        "Lung",
        "The gene product Surfactant protein C has the associated anatomy Lung.",
        [
            "The lung is the anatomy associated with surfactant protein C.",
            "Surfactant protein C is associated with the lung as its anatomy.",
        ],
        [
            "Surfactant protein C is the anatomy associated with the lung.",
            "The lung is associated with surfactant protein C as its anatomy.",
        ],
    ),
    (
        "Lactase",
        "Lactose hydrolysis",
        "Lactase has biochemical function Lactose hydrolysis.",
        [
            "Lactose hydrolysis is a biochemical function of lactase.",
            "Lactase carries out the biochemical function of lactose hydrolysis.",
            "The biochemical function of lactase is lactose hydrolysis.",
        ],
        [
            "Lactase is a biochemical function of lactose hydrolysis.",
            "The biochemical function of lactose hydrolysis is lactase.",
            "Lactose hydrolysis has biochemical function lactase.",
        ],
    ),
    (
        "Caspase 3",
        "Apoptosis",
        "The gene product Caspase 3 plays a role in biological process Apoptosis.",
        [
            "Caspase 3 participates in apoptosis.",
            "Apoptosis is a biological process in which caspase 3 plays a role.",
            "Caspase 3 is involved in the biological process of apoptosis.",
        ],
        [
            "Apoptosis participates in caspase 3.",
            "Caspase 3 is a biological process in which apoptosis plays a role.",
            "Apoptosis is involved in the biological process of caspase 3.",
        ],
    ),
    (
        "Prednisone",
        "Immunosuppression",
        "Immunosuppression can be caused by Prednisone.",
        [
            "Prednisone can cause immunosuppression.",
            "Prednisone can lead to immunosuppression.",
            "Immunosuppression can result from prednisone.",
            "Prednisone can be a cause of immunosuppression.",
        ],
        [
            "Immunosuppression can cause prednisone.",
            "Immunosuppression can lead to prednisone.",
            "Prednisone can result from immunosuppression.",
            "Immunosuppression can be a cause of prednisone.",
        ],
    ),
    (
        "Isoniazid",
        "Tuberculosis",
        "Isoniazid may be able to prevent Tuberculosis.",
        [
            "Tuberculosis may be prevented by isoniazid.",
            "Isoniazid could help to prevent tuberculosis.",
            "Tuberculosis may be preventable with isoniazid.",
        ],
        [
            "Isoniazid may be prevented by tuberculosis.",
            "Tuberculosis could help to prevent isoniazid.",
            "Isoniazid may be preventable with tuberculosis.",
        ],
    ),
    (
        "Levothyroxine",
        "Hypothyroidism",
        "If a patient suffers from Hypothyroidism, he/she should take Levothyroxine.",
        [
            "A patient who has hypothyroidism should take levothyroxine.",
            "Patients suffering from hypothyroidism should be given levothyroxine.",
        ],
        [
            "A patient who has levothyroxine should take hypothyroidism.",
            "Patients suffering from levothyroxine should be given hypothyroidism.",
        ],
    ),
    (
        "Levothyroxine",
        "Hypothyroidism",
        "Levothyroxine might treat Hypothyroidism.",
        [
            "Hypothyroidism might be treated with levothyroxine.",
            "Levothyroxine may be used to treat hypothyroidism.",
            "Levothyroxine is a possible treatment for hypothyroidism.",
            "Hypothyroidism may respond to levothyroxine.",
        ],
        [
            "Levothyroxine might be treated with hypothyroidism.",
            "Hypothyroidism may be used to treat levothyroxine.",
            "Hypothyroidism is a possible treatment for levothyroxine.",
            "Levothyroxine may respond to hypothyroidism.",
        ],
    ),
    (
        "Post-herpetic neuralgia",
        "Herpes zoster",
        "Post-herpetic neuralgia occurs after Herpes zoster.",
        [
            "Herpes zoster precedes post-herpetic neuralgia.",
            "Postherpetic neuralgia develops after herpes zoster.",
            "Herpes zoster is followed by post-herpetic neuralgia.",
        ],
        [
            "Post-herpetic neuralgia precedes herpes zoster.",
            "Herpes zoster develops after postherpetic neuralgia.",
            "Post-herpetic neuralgia is followed by herpes zoster.",
        ],
    ),
]


def cases(probes: list[Probe] | None = None) -> list[tuple[str, str, str, str, bool, str]]:
    """Every probe (of ``PROBES`` and ``LATER`` by default) as (statement, candidate, head,
    tail, negated, expect)."""
    out = []
    for head, tail, statement, faithful, swaps in PROBES + LATER if probes is None else probes:
        negated = len(negation_cues(statement, mask=(head, tail))) % 2 == 1
        out += [(statement, c, head, tail, negated, "accept") for c in faithful]
        out += [(statement, c, head, tail, negated, "reject") for c in swaps]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the share of faithful probes accepted and of role swaps rejected."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--show", action="store_true", help="list the mistakes")
    args = parser.parse_args(argv)
    for name, probes in (("first set", PROBES), ("later set", LATER)):
        print(name)
        _rates(cases(probes), show=args.show)
    return 0


def _rates(rows: list[tuple[str, str, str, str, bool, str]], *, show: bool) -> None:
    good = bad = good_ok = bad_ok = 0
    for statement, candidate, head, tail, negated, expect in rows:
        verdict = validate_rephrasing(statement, candidate, head=head, tail=tail, negated=negated)
        if expect == "accept":
            good += 1
            good_ok += verdict.ok
        else:
            bad += 1
            bad_ok += not verdict.ok
        if show and verdict.ok != (expect == "accept"):
            print(f"  {'REJECTED' if expect == 'accept' else 'ACCEPTED'} [{verdict.reason}]")
            print(f"    S: {statement}\n    C: {candidate}")
    print(f"faithful accepted {good_ok}/{good} = {100 * good_ok / good:.1f}%")
    print(f"role swaps rejected {bad_ok}/{bad} = {100 * bad_ok / bad:.1f}%")


if __name__ == "__main__":
    raise SystemExit(main())
