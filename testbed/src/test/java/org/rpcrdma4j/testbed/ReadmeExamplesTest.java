package org.rpcrdma4j.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of the README compiles and runs as written: its imports on top, its
 * statements as the body of a method. Two blocks are left out, each named by its fence and counted:
 * {@code ```java nfs4j} needs nfs4j, which is not on Maven Central, and {@code ```java verbs} needs
 * the JDK 22+ verbs module and an RDMA device.
 */
class ReadmeExamplesTest {

    private static final Pattern BLOCK = Pattern.compile("```java([^\\n]*)\\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyJavaBlockOfTheReadmeCompilesAndRuns() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        List<String> runnable = new ArrayList<>();
        int nfs4j = 0;
        int verbs = 0;
        Matcher block = BLOCK.matcher(readme);
        while (block.find()) {
            String info = block.group(1).trim();
            if (info.equals("nfs4j")) {
                nfs4j++;
            } else if (info.equals("verbs")) {
                verbs++;
            } else {
                assertThat(info).as("a java block's fence says what it needs").isEmpty();
                runnable.add(block.group(2));
            }
        }
        assertThat(runnable).as("runnable examples").isNotEmpty();
        assertThat(nfs4j).as("blocks that need nfs4j").isEqualTo(1);
        assertThat(verbs).as("blocks that need the verbs module and a device").isEqualTo(1);
        for (int i = 0; i < runnable.size(); i++) {
            run("ReadmeExample" + i, runnable.get(i));
        }
    }

    private static void run(String name, String snippet) throws Exception {
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        for (String line : snippet.split("\\n")) {
            (line.startsWith("import ") ? imports : body).append(line).append('\n');
        }
        String source = imports + "public class " + name + " {\n    public static void run() throws Exception {\n"
                + body + "    }\n}\n";
        Path dir = Files.createTempDirectory("readme");
        Path file = dir.resolve(name + ".java");
        Files.writeString(file, source);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        boolean compiled = compiler.getTask(errors, null, null,
                List.of("-classpath", System.getProperty("java.class.path"), "-d", dir.toString()), null,
                compiler.getStandardFileManager(null, null, null).getJavaFileObjects(file.toFile())).call();
        assertThat(compiled).as("README example compiles:%n%s%n%s", errors, source).isTrue();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                ReadmeExamplesTest.class.getClassLoader())) {
            Method run = loader.loadClass(name).getMethod("run");
            run.invoke(null);
        }
        deleteTree(dir);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
